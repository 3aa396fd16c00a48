package dev.distlock.internal.cdi;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Set;

/**
 * The families of types whose work runs or ends after the method that returned them: lazy ones
 * (run when subscribed, collected or materialized) and later-completing ones (already running,
 * done later). Known by the names of a type and its supertypes, so that recognising one never
 * loads an optional library that may be absent. {@code CompletionStage} and Mutiny's {@code Uni},
 * which distlock holds, are {@link ReturnTypes}' business.
 */
final class LaterTypes {

    /** What a family's types do after the method returned, and what a locked method returns instead. */
    record Family(String why, String instead) {
    }

    private static final String SUBSCRIBED = "whose work starts when something subscribes, after the lock was released";

    private static final Family MULTI = new Family("a Mutiny stream whose items are made when something subscribes, after the "
            + "lock was released", "return Uni (multi.collect().asList()), which distlock holds until each subscription ends");
    private static final Family REACTOR = new Family(SUBSCRIBED, "return CompletionStage (mono.toFuture(), "
            + "flux.collectList().toFuture()) or Uni of its result, which distlock holds until it ends, or a plain value");
    private static final Family RXJAVA = new Family(SUBSCRIBED, "return CompletionStage (in RxJava 3 single.toCompletionStage(), "
            + "observable.toList().toCompletionStage()) or Uni of its result, which distlock holds until it ends, or a plain value");
    private static final Family PUBLISHER = new Family(SUBSCRIBED, "return Uni, CompletionStage or a plain value");
    private static final Family STREAM = new Family("whose elements are made as the caller consumes it, after the lock was "
            + "released", "return a List (stream.toList()) or another collection");
    private static final Family FUTURE = new Family("whose completion cannot be observed, so the lock could not be held until it is "
            + "done", "return CompletionStage instead");
    private static final Family VERTX = new Family("which completes after the method returned", "return CompletionStage "
            + "(future.toCompletionStage()) or Uni, which distlock holds until they complete");
    private static final Family VERTX_STREAM = new Family("a stream read after the method returned, after the lock was released",
            "return Uni or CompletionStage of the data read");
    private static final Family KOTLIN_JOB = new Family("which completes after the method returned", "return CompletionStage "
            + "(deferred.asCompletableFuture()), which distlock holds until it completes");
    private static final Family KOTLIN_FLOW = new Family("whose work runs when it is collected, after the lock was released",
            "return a List, CompletionStage or Uni of the values");
    private static final Family STREAM_GRAPH = new Family("a stream blueprint that runs when it is materialized, after the lock was "
            + "released", "return the CompletionStage its run gives (source.runWith(Sink.seq(), materializer))");
    private static final Family SCALA_FUTURE = new Family("which completes after the method returned", "return CompletionStage "
            + "(scala.jdk.javaapi.FutureConverters.asJava(future)), which distlock holds until it completes");
    private static final Family OPERATORS = new Family("a MicroProfile Reactive Streams graph that runs when it is run, after the "
            + "lock was released", "return the CompletionStage that run() gives");

    private static final Set<String> REACTOR_TYPES = Set.of("Mono", "Flux", "ParallelFlux");
    private static final Set<String> RXJAVA_TYPES = Set.of("Single", "Maybe", "Completable", "Observable", "Flowable",
            "SingleSource", "MaybeSource", "CompletableSource", "ObservableSource");
    private static final List<String> STREAM_GRAPH_PACKAGES = List.of("akka.stream.javadsl.", "akka.stream.scaladsl.",
            "org.apache.pekko.stream.javadsl.", "org.apache.pekko.stream.scaladsl.");

    /** Methods by which a type of no known family tells that its work ends later: subscribing, or a completion callback. */
    private static final Set<String> CALLBACKS = Set.of("subscribe", "onComplete", "onCompletion", "whenComplete", "invokeOnCompletion");

    private LaterTypes() {
    }

    /** The family of the type named {@code name} (one of a return type's supertypes), or {@code null}. */
    static Family family(String name) {
        if (name.equals("io.smallrye.mutiny.Multi")) {
            return MULTI;
        }
        if (name.startsWith("reactor.core.publisher.") && REACTOR_TYPES.contains(simpleName(name))) {
            return REACTOR;
        }
        if ((name.startsWith("io.reactivex.") || name.startsWith("rx.")) && RXJAVA_TYPES.contains(simpleName(name))) {
            return RXJAVA;
        }
        if (name.equals("io.vertx.core.Future") || name.equals("io.vertx.core.Promise")) {
            return VERTX;
        }
        if (name.equals("io.vertx.core.streams.ReadStream")) {
            return VERTX_STREAM;
        }
        if (name.equals("kotlinx.coroutines.Job")) {
            return KOTLIN_JOB;
        }
        if (name.equals("kotlinx.coroutines.flow.Flow") || name.equals("kotlinx.coroutines.channels.ReceiveChannel")) {
            return KOTLIN_FLOW;
        }
        if (STREAM_GRAPH_PACKAGES.stream().anyMatch(name::startsWith)) {
            return STREAM_GRAPH;
        }
        if (name.equals("scala.concurrent.Future")) {
            return SCALA_FUTURE;
        }
        if (name.startsWith("org.eclipse.microprofile.reactive.streams.operators.") && !name.endsWith("ReactiveStreams")) {
            return OPERATORS;
        }
        if (name.equals("java.util.concurrent.Flow$Publisher") || name.equals("org.reactivestreams.Publisher")) {
            return PUBLISHER;
        }
        if (name.equals("java.util.stream.BaseStream")) {
            return STREAM;
        }
        if (name.equals("java.util.concurrent.Future")) {
            return FUTURE;
        }
        return null;
    }

    /**
     * How a type of no known family says that its work ends later — a public method to subscribe
     * to it or to be called back on completion, taking a callback (an interface) — or {@code null}.
     * Types of the platform are known by name above and not looked into.
     */
    static String completionCallback(Class<?> type) {
        String name = type.getName();
        if (type.isPrimitive() || type.isArray() || name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jakarta.")) {
            return null;
        }
        Method[] methods;
        try {
            methods = type.getMethods();
        } catch (LinkageError absent) {
            // A method names a class that is not there: none of ours, so say nothing of it.
            return null;
        }
        for (Method method : methods) {
            if (CALLBACKS.contains(method.getName()) && !Modifier.isStatic(method.getModifiers())) {
                for (Class<?> parameter : method.getParameterTypes()) {
                    if (parameter.isInterface()) {
                        return method.getName() + "(" + parameter.getSimpleName() + ")";
                    }
                }
            }
        }
        return null;
    }

    /** The library a type of a family comes from, for messages; empty for the JDK's and the Reactive Streams' own. */
    static String library(String name) {
        for (String[] prefix : LIBRARIES) {
            if (name.startsWith(prefix[0])) {
                return prefix[1];
            }
        }
        return "";
    }

    private static final String[][] LIBRARIES = {
            {"io.smallrye.mutiny.", "Mutiny"}, {"reactor.", "Reactor"}, {"io.reactivex.rxjava3.", "RxJava 3"},
            {"io.reactivex.", "RxJava 2"}, {"rx.", "RxJava 1"}, {"io.vertx.", "Vert.x"}, {"kotlinx.", "Kotlin"}, {"akka.", "Akka"},
            {"org.apache.pekko.", "Pekko"}, {"scala.", "Scala"}, {"org.eclipse.microprofile.reactive.streams.", "MicroProfile"}};

    /** {@code Publisher} for {@code org.reactivestreams.Publisher}, {@code Flow.Publisher} for a nested class. */
    static String simpleName(String name) {
        return name.substring(name.lastIndexOf('.') + 1).replace('$', '.');
    }
}
