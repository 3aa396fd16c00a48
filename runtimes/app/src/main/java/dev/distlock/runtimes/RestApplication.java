package dev.distlock.runtimes;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The resources at the root of the application. */
@ApplicationPath("/")
public class RestApplication extends Application {
}
