package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.LockMode;
import dev.distlock.OnTimeout;
import dev.distlock.spi.LockPolicy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lazy and later-completing families whose libraries this build does not have (RxJava 1 and 2,
 * Kotlin coroutines, Akka and Pekko streams, Scala futures, MicroProfile Reactive Streams
 * Operators) are refused by name too: stand-ins of their types, under their real names, are
 * compiled here, and a method returning each is refused naming it. Recognising them loads nothing
 * but the method's own return type. {@link RefusedReturnTypesTest} shows the families on this class
 * path refused by a deployment.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReturnTypesTest {

    /** Each stand-in type: its declaration, as the library declares it (in shape, not in content). */
    private static final Map<String, String> STAND_INS = new LinkedHashMap<>();

    static {
        STAND_INS.put("io.reactivex.SingleSource", "public interface SingleSource<T> {}");
        STAND_INS.put("io.reactivex.Single", "public abstract class Single<T> implements SingleSource<T> {}");
        STAND_INS.put("io.reactivex.MaybeSource", "public interface MaybeSource<T> {}");
        STAND_INS.put("io.reactivex.Maybe", "public abstract class Maybe<T> implements MaybeSource<T> {}");
        STAND_INS.put("io.reactivex.CompletableSource", "public interface CompletableSource {}");
        STAND_INS.put("io.reactivex.Completable", "public abstract class Completable implements CompletableSource {}");
        STAND_INS.put("io.reactivex.ObservableSource", "public interface ObservableSource<T> {}");
        STAND_INS.put("io.reactivex.Observable", "public abstract class Observable<T> implements ObservableSource<T> {}");
        STAND_INS.put("io.reactivex.Flowable", "public abstract class Flowable<T> implements org.reactivestreams.Publisher<T> {}");
        STAND_INS.put("rx.Observable", "public class Observable<T> {}");
        STAND_INS.put("rx.Single", "public class Single<T> {}");
        STAND_INS.put("kotlinx.coroutines.Job", "public interface Job {}");
        STAND_INS.put("kotlinx.coroutines.Deferred", "public interface Deferred<T> extends Job {}");
        STAND_INS.put("kotlinx.coroutines.flow.Flow", "public interface Flow<T> {}");
        STAND_INS.put("kotlinx.coroutines.channels.ReceiveChannel", "public interface ReceiveChannel<E> {}");
        STAND_INS.put("kotlin.coroutines.Continuation", "public interface Continuation<T> {}");
        STAND_INS.put("akka.stream.javadsl.Source", "public final class Source<Out, Mat> {}");
        STAND_INS.put("akka.stream.scaladsl.Flow", "public final class Flow<In, Out, Mat> {}");
        STAND_INS.put("akka.stream.javadsl.RunnableGraph", "public abstract class RunnableGraph<Mat> {}");
        STAND_INS.put("org.apache.pekko.stream.javadsl.Source", "public final class Source<Out, Mat> {}");
        STAND_INS.put("org.apache.pekko.stream.scaladsl.RunnableGraph", "public interface RunnableGraph<Mat> {}");
        STAND_INS.put("scala.concurrent.Future", "public interface Future<T> {}");
        STAND_INS.put("org.eclipse.microprofile.reactive.streams.operators.PublisherBuilder", "public interface PublisherBuilder<T> {}");
        STAND_INS.put("org.eclipse.microprofile.reactive.streams.operators.CompletionRunner", "public interface CompletionRunner<T> {}");
        STAND_INS.put("com.example.later.Callback", "public interface Callback<T> { void done(T value); }");
        STAND_INS.put("com.example.later.Eventual", "public class Eventual<T> { public void onComplete(Callback<T> callback) {} }");
        STAND_INS.put("com.example.later.Customer", "public class Customer {}");
        STAND_INS.put("com.example.later.Newsletter", "public class Newsletter { public void subscribe(Customer customer) {} }");
    }

    private Path classes;
    private URLClassLoader loader;
    /** The methods of the compiled {@code com.example.Shop}, by name: each returns one of the types above. */
    private final Map<String, Method> methods = new LinkedHashMap<>();

    @BeforeAll
    void compileStandIns() throws IOException {
        Path sources = Files.createTempDirectory("later-types-src");
        classes = Files.createTempDirectory("later-types");
        List<Path> files = new ArrayList<>();
        STAND_INS.forEach((name, declaration) -> files.add(write(sources, name,
                "package " + name.substring(0, name.lastIndexOf('.')) + ";\n" + declaration + "\n")));
        files.add(write(sources, "com.example.Shop", """
                package com.example;
                public class Shop {
                    public io.reactivex.Single<String> rx2Single() { return null; }
                    public io.reactivex.Maybe<String> rx2Maybe() { return null; }
                    public io.reactivex.Completable rx2Completable() { return null; }
                    public io.reactivex.Observable<String> rx2Observable() { return null; }
                    public io.reactivex.Flowable<String> rx2Flowable() { return null; }
                    public rx.Observable<String> rx1Observable() { return null; }
                    public rx.Single<String> rx1Single() { return null; }
                    public kotlinx.coroutines.Deferred<String> deferred() { return null; }
                    public kotlinx.coroutines.Job job() { return null; }
                    public kotlinx.coroutines.flow.Flow<String> flow() { return null; }
                    public kotlinx.coroutines.channels.ReceiveChannel<String> channel() { return null; }
                    public Object suspending(String sku, kotlin.coroutines.Continuation<? super String> continuation) { return null; }
                    public akka.stream.javadsl.Source<String, Void> akkaSource() { return null; }
                    public akka.stream.scaladsl.Flow<String, String, Void> akkaFlow() { return null; }
                    public akka.stream.javadsl.RunnableGraph<Void> akkaGraph() { return null; }
                    public org.apache.pekko.stream.javadsl.Source<String, Void> pekkoSource() { return null; }
                    public org.apache.pekko.stream.scaladsl.RunnableGraph<Void> pekkoGraph() { return null; }
                    public scala.concurrent.Future<String> scalaFuture() { return null; }
                    public org.eclipse.microprofile.reactive.streams.operators.PublisherBuilder<String> publisherBuilder() { return null; }
                    public org.eclipse.microprofile.reactive.streams.operators.CompletionRunner<Void> completionRunner() { return null; }
                    public com.example.later.Eventual<String> eventual() { return null; }
                    public java.util.Optional<kotlinx.coroutines.Deferred<String>> deferredInside() { return null; }
                    public com.example.later.Newsletter newsletter() { return null; }
                }
                """));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> arguments = new ArrayList<>(List.of("-d", classes.toString(), "-classpath", System.getProperty("java.class.path")));
        files.forEach(file -> arguments.add(file.toString()));
        assertEquals(0, javac.run(null, null, null, arguments.toArray(String[]::new)), "the stand-ins did not compile");
        loader = new URLClassLoader(new java.net.URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
        try {
            for (Method method : loader.loadClass("com.example.Shop").getDeclaredMethods()) {
                methods.put(method.getName(), method);
            }
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
        deleteAll(sources);
    }

    @AfterAll
    void forget() throws IOException {
        loader.close();
        deleteAll(classes);
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("rx2Single", "returns Single (RxJava 2), whose work starts when something subscribes"),
                Arguments.of("rx2Maybe", "returns Maybe (RxJava 2), whose work starts"),
                Arguments.of("rx2Completable", "returns Completable (RxJava 2), whose work starts"),
                Arguments.of("rx2Observable", "returns Observable (RxJava 2), whose work starts"),
                Arguments.of("rx2Flowable", "returns Flowable (RxJava 2), whose work starts"),
                Arguments.of("rx1Observable", "returns Observable (RxJava 1), whose work starts"),
                Arguments.of("rx1Single", "returns Single (RxJava 1), whose work starts"),
                Arguments.of("deferred", "returns Deferred (a Kotlin Job), which completes after the method returned; return CompletionStage "
                        + "(deferred.asCompletableFuture())"),
                Arguments.of("job", "returns Job (Kotlin), which completes after the method returned"),
                Arguments.of("flow", "returns Flow (Kotlin), whose work runs when it is collected"),
                Arguments.of("channel", "returns ReceiveChannel (Kotlin), whose work runs when it is collected"),
                Arguments.of("suspending", "is a Kotlin suspend function, which returns when it first suspends"),
                Arguments.of("akkaSource", "returns Source (Akka), a stream blueprint that runs when it is materialized"),
                Arguments.of("akkaFlow", "returns Flow (Akka), a stream blueprint"),
                Arguments.of("akkaGraph", "returns RunnableGraph (Akka), a stream blueprint"),
                Arguments.of("pekkoSource", "returns Source (Pekko), a stream blueprint"),
                Arguments.of("pekkoGraph", "returns RunnableGraph (Pekko), a stream blueprint"),
                Arguments.of("scalaFuture", "returns Future (Scala), which completes after the method returned; return CompletionStage "
                        + "(scala.jdk.javaapi.FutureConverters.asJava(future))"),
                Arguments.of("publisherBuilder", "returns PublisherBuilder (MicroProfile), a MicroProfile Reactive Streams graph"),
                Arguments.of("completionRunner", "returns CompletionRunner (MicroProfile), a MicroProfile Reactive Streams graph"),
                Arguments.of("eventual", "returns com.example.later.Eventual, which has onComplete(Callback)"),
                Arguments.of("deferredInside", "returns java.util.Optional<kotlinx.coroutines.Deferred<java.lang.String>>, and the "
                        + "Deferred inside it"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void aLaterTypeOfALibraryNotOnThisClassPathIsRefusedByName(String method, String why) {
        LockPolicy policy = new LockPolicy("Shop." + method + "()", LockMode.EXCLUSIVE, 5_000, LockPolicy.WATCHDOG_LEASE, OnTimeout.FAIL);
        LockDefinitionException refused = assertThrows(LockDefinitionException.class, () -> ReturnTypes.of(methods.get(method), policy));
        assertTrue(refused.getMessage().startsWith("@Locked on Shop." + method + "(): "), refused.getMessage());
        assertTrue(refused.getMessage().contains(why), refused.getMessage());
    }

    /** The twin of the callback rule: a plain value's method named subscribe that takes no callback is no sign of later work. */
    @Test
    void aPlainValueWithASubscribeMethodTakingNoCallbackIsHeldAsAValue() {
        LockPolicy policy = new LockPolicy("Shop.newsletter()", LockMode.EXCLUSIVE, 5_000, LockPolicy.WATCHDOG_LEASE, OnTimeout.FAIL);
        ReturnTypes.Handling handling = ReturnTypes.of(methods.get("newsletter"), policy);
        assertEquals(dev.distlock.internal.core.ReturnKind.VALUE, handling.kind());
        assertNull(handling.lazy());
    }

    private static Path write(Path root, String className, String source) {
        try {
            Path file = root.resolve(className.replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            return Files.writeString(file, source);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void deleteAll(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
