package dev.distlock.internal.core;

import java.util.concurrent.Executor;

/** Runs each task on a new thread, so that each task is its own lock owner. */
public enum OwnThread implements Executor {
    EACH;

    @Override
    public void execute(Runnable task) {
        new Thread(task, "own-thread").start();
    }
}
