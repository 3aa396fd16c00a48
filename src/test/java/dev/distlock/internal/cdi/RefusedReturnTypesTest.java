package dev.distlock.internal.cdi;

import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import dev.distlock.testing.DistlockWeld;
import dev.distlock.testkit.TestRedis;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Observable;
import io.reactivex.rxjava3.core.Single;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.operators.AbstractUni;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.streams.ReadStream;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.DeploymentException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.ForkJoinTask;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every return type is held until its work ends or refused at deployment by name (issue 45): each
 * lazy or later-completing type on this class path fails the deployment with a message naming the
 * annotation, the method, the type and what to return instead, through both extensions. The
 * families whose libraries are not here are refused by name in {@link ReturnTypesTest}.
 */
class RefusedReturnTypesTest {

    /** A type of no known family whose work ends later: it can be subscribed to. */
    public interface Eventually<T> {
        void subscribe(Consumer<T> onItem);
    }

    @ApplicationScoped
    public static class Refused {
        @Locked("a") public Multi<String> multi() { return null; }
        @Locked("a") public Mono<String> mono() { return null; }
        @Locked("a") public Flux<String> flux() { return null; }
        @Locked("a") public Single<String> rxSingle() { return null; }
        @Locked("a") public Maybe<String> rxMaybe() { return null; }
        @Locked("a") public Completable rxCompletable() { return null; }
        @Locked("a") public Observable<String> rxObservable() { return null; }
        @Locked("a") public Flowable<String> rxFlowable() { return null; }
        @Locked("a") public Flow.Publisher<String> flowPublisher() { return null; }
        @Locked("a") public org.reactivestreams.Publisher<String> publisher() { return null; }
        @Locked("a") public Stream<String> stream() { return null; }
        @Locked("a") public IntStream intStream() { return null; }
        @Locked("a") public Future<String> vertxFuture() { return null; }
        @Locked("a") public Promise<String> vertxPromise() { return null; }
        @Locked("a") public ReadStream<String> vertxStream() { return null; }
        @Locked("a") public java.util.concurrent.Future<String> future() { return null; }
        @Locked("a") public ForkJoinTask<String> forkJoinTask() { return null; }
        @Locked("a") public AbstractUni<String> uniSubtype() { return null; }
        @Locked("a") public Eventually<String> eventually() { return null; }
        @Locked("a") public Optional<Uni<String>> uniInside() { return null; }
        @Locked("a") public List<CompletableFuture<String>> stagesInside() { return null; }
        @Locked("a") public CompletionStage<Stream<String>> streamInStage() { return null; }
        @ReadLocked("a") public Multi<String> readMulti() { return null; }
        @WriteLocked("a") public Flux<String> writeFlux() { return null; }
    }

    /** The twin: types held until their work ends, and plain values, deploy. */
    @ApplicationScoped
    public static class Held {
        @Locked("a") public Uni<String> uni() { return null; }
        @Locked("a") public Uni<List<String>> uniOfList() { return null; }
        @Locked("a") public CompletionStage<Optional<String>> stage() { return null; }
        @Locked("a") public CompletableFuture<String> future() { return null; }
        @Locked("a") public Optional<String> optional() { return null; }
        @Locked("a") public List<String> list() { return null; }
        @Locked("a") public Map<String, List<Integer>> map() { return null; }
        @Locked("a") public String[] array() { return null; }
        @Locked("a") public void nothing() { }
    }

    /** Declared to return {@code Object}: what it returns is seen only at the call. */
    @ApplicationScoped
    public static class Untyped {
        final java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();

        @Locked("untyped")
        public Object result(boolean later) {
            return later ? Uni.createFrom().item(() -> ran.incrementAndGet()) : "plain";
        }

        int ran() {
            return ran.get();
        }
    }

    @Test
    void aLaterResultOfAMethodDeclaredToReturnObjectFailsTheCallAndItsWorkNeverRuns() {
        try (DistlockWeld weld = DistlockWeld.start(Map.of("distlock.key-prefix", TestRedis.uniquePrefix("untyped")),
                dev.distlock.testing.TestRedisClient.class, Untyped.class)) {
            Untyped untyped = weld.bean(Untyped.class);
            assertEquals("plain", untyped.result(false));
            dev.distlock.LockDefinitionException refused = assertThrows(dev.distlock.LockDefinitionException.class,
                    () -> untyped.result(true));
            assertTrue(refused.getMessage().startsWith("@Locked on Untyped.result(boolean): declared to return Object, it returned a "),
                    refused.getMessage());
            assertTrue(refused.getMessage().contains("(a Uni), whose work runs or ends later"), refused.getMessage());
            assertEquals(0, untyped.ran(), "the Uni's work ran");
        }
    }

    @Test
    void everyLaterTypeIsRefusedByName() {
        assertRefused(
                "@Locked on Refused.multi(): returns Multi (Mutiny), a Mutiny stream", "return Uni (multi.collect().asList())",
                "@Locked on Refused.mono(): returns Mono (Reactor), whose work starts when something subscribes", "mono.toFuture()",
                "@Locked on Refused.flux(): returns Flux (Reactor), whose work starts when something subscribes",
                "flux.collectList().toFuture()",
                "@Locked on Refused.rxSingle(): returns Single (RxJava 3), whose work starts when something subscribes",
                "single.toCompletionStage()",
                "@Locked on Refused.rxMaybe(): returns Maybe (RxJava 3)",
                "@Locked on Refused.rxCompletable(): returns Completable (RxJava 3)",
                "@Locked on Refused.rxObservable(): returns Observable (RxJava 3)",
                "@Locked on Refused.rxFlowable(): returns Flowable (RxJava 3)",
                "@Locked on Refused.flowPublisher(): returns Flow.Publisher, whose work starts when something subscribes",
                "@Locked on Refused.publisher(): returns Publisher, whose work starts",
                "@Locked on Refused.stream(): returns Stream (a BaseStream), whose elements are made as the caller consumes it",
                "stream.toList()",
                "@Locked on Refused.intStream(): returns IntStream (a BaseStream)",
                "@Locked on Refused.vertxFuture(): returns Future (Vert.x), which completes after the method returned", "future.toCompletionStage()",
                "@Locked on Refused.vertxPromise(): returns Promise (Vert.x), which completes after the method returned",
                "@Locked on Refused.vertxStream(): returns ReadStream (Vert.x), a stream read after the method returned",
                "@Locked on Refused.future(): returns Future, whose completion cannot be observed",
                "@Locked on Refused.forkJoinTask(): returns ForkJoinTask (a Future)",
                "@Locked on Refused.uniSubtype(): returns AbstractUni, a kind of Mutiny Uni; declare the method to return Uni itself",
                "@Locked on Refused.eventually(): returns " + Eventually.class.getName() + ", which has subscribe(Consumer)",
                "@Locked on Refused.uniInside(): returns java.util.Optional<io.smallrye.mutiny.Uni<java.lang.String>>, and the Uni inside it",
                "@Locked on Refused.stagesInside(): returns java.util.List<java.util.concurrent.CompletableFuture<java.lang.String>>, "
                        + "and the CompletableFuture inside it",
                "@Locked on Refused.streamInStage(): returns java.util.concurrent.CompletionStage<java.util.stream.Stream<java.lang.String>>, "
                        + "and the Stream inside it",
                "@ReadLocked on Refused.readMulti(): returns Multi (Mutiny)",
                "@WriteLocked on Refused.writeFlux(): returns Flux (Reactor)");
    }

    @Test
    void heldTypesAndPlainValuesDeploy() {
        Map<String, String> properties = Map.of("distlock.key-prefix", TestRedis.uniquePrefix("held-types"));
        DistlockWeld.start(properties, Held.class).close();
        DistlockWeld.startLite(properties, Held.class).close();
    }

    /** Both ways distlock enters a container fail alike, with every refusal in the one failure. */
    private static void assertRefused(String... fragments) {
        Map<String, String> properties = Map.of("distlock.key-prefix", TestRedis.uniquePrefix("refused-types"));
        for (boolean lite : new boolean[] {false, true}) {
            RuntimeException failure = assertThrows(RuntimeException.class, () -> {
                (lite ? DistlockWeld.startLite(properties, Refused.class) : DistlockWeld.start(properties, Refused.class)).close();
                fail("deployed" + (lite ? " through the build compatible extension" : ""));
            });
            if (!(failure instanceof DefinitionException || failure instanceof DeploymentException)) {
                throw new AssertionError("not a deployment failure: " + failure, failure);
            }
            String messages = DistlockWeld.messages(failure);
            for (String fragment : fragments) {
                assertTrue(messages.contains(fragment), () -> "'" + fragment + "' missing from" + (lite ? " (CDI Lite)" : "") + ": " + messages);
            }
        }
    }
}
