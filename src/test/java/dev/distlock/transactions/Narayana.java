package dev.distlock.transactions;

import com.arjuna.ats.arjuna.common.ObjectStoreEnvironmentBean;
import com.arjuna.ats.jta.cdi.TransactionExtension;
import com.arjuna.ats.jta.cdi.transactional.TransactionalInterceptorMandatory;
import com.arjuna.ats.jta.cdi.transactional.TransactionalInterceptorNever;
import com.arjuna.ats.jta.cdi.transactional.TransactionalInterceptorNotSupported;
import com.arjuna.ats.jta.cdi.transactional.TransactionalInterceptorRequired;
import com.arjuna.ats.jta.cdi.transactional.TransactionalInterceptorRequiresNew;
import com.arjuna.ats.jta.cdi.transactional.TransactionalInterceptorSupports;
import com.arjuna.common.internal.util.propertyservice.BeanPopulator;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testing.TestRedisClient;
import dev.distlock.testkit.CdiContainer;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A real transaction manager under Weld SE: Narayana, WildFly's and Quarkus's, with its own
 * {@code @Transactional} interceptors. Transactions nest, suspend and resume
 * ({@code REQUIRES_NEW}, {@code NOT_SUPPORTED}), doom ({@code setRollbackOnly}) and time out, in
 * which case Narayana's reaper rolls them back on its own thread; distlock finds the
 * {@code TransactionSynchronizationRegistry} that Narayana's CDI extension produces.
 */
public final class Narayana {

    static {
        // Nothing is written for one-phase commits without resources, but keep the store in target/.
        BeanPopulator.getDefaultInstance(ObjectStoreEnvironmentBean.class)
                .setObjectStoreDir(Path.of("target", "narayana").toAbsolutePath().toString());
    }

    private Narayana() {
    }

    /** Weld with distlock's portable extension, Narayana, the application's Redis client and {@code beans}. */
    public static DistlockWeld start(Map<String, String> properties, Class<?>... beans) {
        return start(properties, List.of(), beans);
    }

    /** The same with other extensions of the application's beside Narayana's. */
    public static DistlockWeld start(Map<String, String> properties, List<Extension> others, Class<?>... beans) {
        return DistlockWeld.start(properties, withTransactionExtension(others), withTransactions(beans));
    }

    /** The same with distlock's build compatible extension, as a CDI Lite runtime runs it. */
    public static DistlockWeld startLite(Map<String, String> properties, Class<?>... beans) {
        return startLite(properties, List.of(), beans);
    }

    /** CDI Lite with other extensions of the application's beside Narayana's. */
    public static DistlockWeld startLite(Map<String, String> properties, List<Extension> others, Class<?>... beans) {
        return DistlockWeld.startLite(properties, withTransactionExtension(others), withTransactions(beans));
    }

    /** Weld with Narayana, the application's extensions and {@code beans}, and no distlock at all: what an application is without it. */
    public static CdiContainer startWithoutDistlock(List<Extension> others, Class<?>... beans) {
        return CdiContainer.start(Map.of(), withTransactionExtension(others).toArray(Extension[]::new), withTransactions(beans));
    }

    private static List<Extension> withTransactionExtension(List<Extension> others) {
        return Stream.concat(Stream.of(new TransactionExtension()), others.stream()).toList();
    }

    private static Class<?>[] withTransactions(Class<?>[] beans) {
        return Stream.concat(Stream.of(beans), Stream.of(TestRedisClient.class,
                TransactionalInterceptorRequired.class, TransactionalInterceptorRequiresNew.class,
                TransactionalInterceptorMandatory.class, TransactionalInterceptorSupports.class,
                TransactionalInterceptorNotSupported.class, TransactionalInterceptorNever.class)).toArray(Class<?>[]::new);
    }

    public static TransactionManager transactionManager() {
        return com.arjuna.ats.jta.TransactionManager.transactionManager();
    }

    /** The transaction of the current thread, or {@code null}. */
    public static Transaction current() {
        try {
            return transactionManager().getTransaction();
        } catch (SystemException e) {
            throw new IllegalStateException(e);
        }
    }
}
