package dev.distlock.example.shop;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/** {@code GET /api/inventory}, {@code GET /api/inventory/{sku}} and {@code PUT /api/inventory/{sku}} (set the stock). */
@Path("inventory")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class InventoryResource {

    private final Inventory inventory;

    @Inject
    InventoryResource(Inventory inventory) {
        this.inventory = inventory;
    }

    /** For proxies only. */
    protected InventoryResource() {
        this.inventory = null;
    }

    @GET
    public List<StockLevel> all() {
        return inventory.all();
    }

    @GET
    @Path("{sku}")
    public StockLevel level(@PathParam("sku") String sku) {
        String valid = ShopLimits.sku(sku);
        return inventory.level(valid).orElseThrow(() -> ShopException.unknownSku(valid));
    }

    /**
     * Sets the stock (not adds to it), so repeating the request changes nothing; creates the SKU if
     * needed. Answers with the stock it replaced. {@code "stripes": 16} keeps the stock in 16
     * stripes from now on, spread evenly; {@code 1} in one row again.
     */
    @PUT
    @Path("{sku}")
    public StockChange restock(@PathParam("sku") String sku, Restock body) {
        String valid = ShopLimits.sku(sku);
        if (body == null) {
            throw ShopException.invalid("a JSON body {\"stock\": n} is required");
        }
        return inventory.restock(valid, ShopLimits.stock(body.stock()), ShopLimits.name(body.name(), null),
                ShopLimits.stripes(body.stripes()));
    }
}
