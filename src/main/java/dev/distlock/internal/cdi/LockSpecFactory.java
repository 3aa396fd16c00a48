package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.OnTimeout;
import dev.distlock.spi.Durations;
import dev.distlock.spi.LockPolicy;
import dev.distlock.internal.core.MethodKeys;
import org.eclipse.microprofile.config.Config;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Builds the {@link LockSpec} of a method from its lock annotation (or its class's) and the
 * MicroProfile Config overrides, most specific first:
 * {@code <fqcn>/<method>/Locked/<member>}, {@code <fqcn>/Locked/<member>}, {@code Locked/<member>},
 * then the annotation. The key scheme is MicroProfile Fault Tolerance's.
 */
final class LockSpecFactory {

    private final Config config;

    LockSpecFactory(Config config) {
        this.config = config;
    }

    /** The lock annotation that governs {@code method} of {@code beanClass}, if any. */
    static Optional<Annotation> governing(Class<?> beanClass, Method method) {
        List<Annotation> onMethod = lockAnnotations(method.getAnnotations());
        if (onMethod.size() > 1) {
            throw new LockDefinitionException(describe(onMethod) + " on " + site(method)
                    + ": a method takes one lock annotation; list several keys in its value instead");
        }
        if (onMethod.size() == 1) {
            return Optional.of(onMethod.get(0));
        }
        List<Annotation> onClass = lockAnnotations(beanClass.getAnnotations());
        if (onClass.size() > 1) {
            throw new LockDefinitionException(describe(onClass) + " on class " + beanClass.getName()
                    + ": a class takes one lock annotation");
        }
        return onClass.stream().findFirst();
    }

    LockSpec build(Class<?> beanClass, Method method, Annotation annotation) {
        LockAnnotation declared = LockAnnotation.of(annotation);
        String site = site(method);
        String[] keyBases = {
                beanClass.getName() + "/" + method.getName() + "/" + declared.simpleName() + "/",
                beanClass.getName() + "/" + declared.simpleName() + "/",
                declared.simpleName() + "/"};

        List<String> templates = lookup(keyBases, "value")
                .map(LockSpecFactory::splitList)
                .orElse(declared.value());
        long waitTime = lookup(keyBases, "waitTime").map(v -> millis(keyBases, "waitTime", v, site)).orElse(declared.waitTime());
        long leaseTime = lookup(keyBases, "leaseTime").map(v -> millis(keyBases, "leaseTime", v, site)).orElse(declared.leaseTime());
        OnTimeout onTimeout = lookup(keyBases, "onTimeout").map(v -> onTimeout(keyBases, v, site)).orElse(declared.onTimeout());

        boolean fenced = lookup(keyBases, "fenced").map(v -> flag(keyBases, "fenced", v, site)).orElse(declared.fenced());

        long holdAtLeast = lookup(keyBases, "holdAtLeast").map(v -> millis(keyBases, "holdAtLeast", v, site)).orElse(declared.holdAtLeast());

        LockPolicy policy = new LockPolicy(site, declared.mode(), waitTime, leaseTime, onTimeout, fenced, holdAtLeast);
        ReturnTypes.Handling result = ReturnTypes.of(method, policy);
        MethodKeys keys = MethodKeys.bind(templates, method, declared.mode(), site);
        String[] combinedBases = {
                beanClass.getName() + "/" + method.getName() + "/Combined/", beanClass.getName() + "/Combined/", "Combined/"};
        CombinedSpec combined = CombinedSpec.of(beanClass, method, policy, result.kind(), member -> lookup(combinedBases, member));
        return new LockSpec(policy, keys, result.kind(), result.lazy(), combined);
    }

    /** {@code Shop.order(String,int)}: how messages name a method. */
    static String site(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(",", "(", ")"));
    }

    private Optional<String> lookup(String[] keyBases, String member) {
        for (String base : keyBases) {
            Optional<String> value = config.getOptionalValue(base + member, String.class);
            if (value.isPresent()) {
                return value;
            }
        }
        return Optional.empty();
    }

    /** Which of the keys gave the value, for messages. */
    private String source(String[] keyBases, String member) {
        for (String base : keyBases) {
            if (config.getOptionalValue(base + member, String.class).isPresent()) {
                return base + member;
            }
        }
        return member;
    }

    /** A global or class-wide key does not name the method, so the message does. */
    private long millis(String[] keyBases, String member, String value, String site) {
        try {
            return Durations.parseMillis(value);
        } catch (IllegalArgumentException e) {
            throw new LockDefinitionException("Config " + source(keyBases, member) + " for " + site + ": " + e.getMessage());
        }
    }

    private boolean flag(String[] keyBases, String member, String value, String site) {
        String text = value.strip().toLowerCase(Locale.ROOT);
        if (!text.equals("true") && !text.equals("false")) {
            throw new LockDefinitionException("Config " + source(keyBases, member) + " for " + site + ": '" + value
                    + "' is neither true nor false");
        }
        return Boolean.parseBoolean(text);
    }

    private OnTimeout onTimeout(String[] keyBases, String value, String site) {
        try {
            return OnTimeout.valueOf(value.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new LockDefinitionException("Config " + source(keyBases, "onTimeout") + " for " + site + ": '" + value
                    + "' is not one of " + Arrays.toString(OnTimeout.values()));
        }
    }

    private static List<String> splitList(String value) {
        List<String> items = new ArrayList<>();
        for (String item : value.split("(?<!\\\\),")) {
            String stripped = item.replace("\\,", ",").strip();
            if (!stripped.isEmpty()) {
                items.add(stripped);
            }
        }
        return items;
    }

    private static List<Annotation> lockAnnotations(Annotation[] annotations) {
        List<Annotation> found = new ArrayList<>();
        for (Annotation annotation : annotations) {
            if (LockAnnotation.TYPES.contains(annotation.annotationType())) {
                found.add(annotation);
            }
        }
        return found;
    }

    private static String describe(List<Annotation> annotations) {
        return annotations.stream().map(a -> "@" + a.annotationType().getSimpleName()).collect(Collectors.joining(" and "));
    }
}
