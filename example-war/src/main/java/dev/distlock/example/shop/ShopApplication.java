package dev.distlock.example.shop;

import jakarta.annotation.sql.DataSourceDefinition;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The REST API under {@code /api}, and the shop's own database connection. Payara resolves
 * {@code ${MPCONFIG=key:default}} in these attributes while it deploys the application, before the
 * application's own {@code microprofile-config.properties} is read: the database is chosen by
 * system properties ({@code -Dshop.datasource.url=...}) or environment variables
 * ({@code SHOP_DATASOURCE_URL}), and the defaults are here. The default is an in-memory H2 that only
 * this server sees; {@code ../shop.sh} points two servers at one H2 server.
 */
@ApplicationPath("/api")
@DataSourceDefinition(
        name = ShopApplication.DATA_SOURCE,
        className = "${MPCONFIG=shop.datasource.class-name:org.h2.jdbcx.JdbcDataSource}",
        url = "${MPCONFIG=shop.datasource.url:jdbc:h2:mem:shop" + ShopApplication.H2_SETTINGS + "}",
        user = "${MPCONFIG=shop.datasource.user:sa}",
        password = "${MPCONFIG=shop.datasource.password:}",
        minPoolSize = 2,
        maxPoolSize = 32,
        // Hand out no connection the database has closed (a restart, an idle timeout, MariaDB
        // closing one after an error): check it before use, and on a failure drop them all. Not
        // one used in the last second, though: the check costs round trips to the database, and
        // an order takes its connection under the SKU's lock, where every buyer of the SKU waits
        // for them (measured: about a quarter of the locked section, benchmarks/README.md).
        properties = {
                "fish.payara.is-connection-validation-required=true",
                "fish.payara.connection-validation-method=auto-commit",
                "fish.payara.validate-atmost-once-period-in-seconds=1",
                "fish.payara.fail-all-connections=true"})
public class ShopApplication extends Application {

    /**
     * What every H2 URL of the shop carries. {@code OPTIMIZE_REUSE_RESULTS=0}: H2 before 2.3.232
     * (Payara Micro 6.2025.10 ships 2.2.224) may answer a query with a result it cached while
     * another session's commit was half done, i.e. with data older than that commit, until the
     * table is written again. The next buyer would then read the stock as it was before the
     * previous buyer's order, although the lock was released only after that order committed.
     * {@code H2StaleResultTest} shows it.
     */
    public static final String H2_SETTINGS = ";DB_CLOSE_DELAY=-1;OPTIMIZE_REUSE_RESULTS=0";

    /** The JNDI name {@code persistence.xml} refers to. */
    public static final String DATA_SOURCE = "java:app/jdbc/shop";
}
