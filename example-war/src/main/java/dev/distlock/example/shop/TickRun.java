package dev.distlock.example.shop;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.util.UUID;

/** One run of the stock audit tick: which tick (its slot of the schedule) and which server ran it. */
@Entity
@Table(name = "shop_tick_run")
public class TickRun {

    /** A random UUID: each run its own row, however many runs a tick has (the test counts them). */
    @Id
    @Column(length = 36)
    private String id;

    /** The tick: the server's clock at the run, divided by the period. */
    @Column(nullable = false)
    private long slot;

    @Column(nullable = false, length = 100)
    private String server;

    protected TickRun() {
        // for JPA
    }

    TickRun(long slot, String server) {
        this.id = UUID.randomUUID().toString();
        this.slot = slot;
        this.server = server;
    }

    public long slot() {
        return slot;
    }

    public String server() {
        return server;
    }
}
