package dev.distlock.virtualthreads;

import dev.distlock.Locked;
import dev.distlock.testkit.OverlapDetector;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;

/** One critical section per key, entered through {@code @Locked} from {@link VirtualThreadStorm}. */
@ApplicationScoped
public class LockedCounters {

    /** The run's detectors, one per key; set before the run, read-only during it. */
    static volatile Map<String, OverlapDetector> detectors;

    @Locked(value = "vt:{0}", waitTime = VirtualThreadStorm.WAIT_MILLIS)
    public void section(String key) {
        detectors.get(key).section();
    }
}
