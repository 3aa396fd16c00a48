package dev.distlock.core;

import java.util.concurrent.Executor;

/** Runs each task on a new thread, so that each task is its own lock owner. */
enum OwnThread implements Executor {
    EACH;

    @Override
    public void execute(Runnable task) {
        new Thread(task, "own-thread").start();
    }
}
