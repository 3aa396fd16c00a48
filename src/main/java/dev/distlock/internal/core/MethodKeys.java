package dev.distlock.internal.core;

import dev.distlock.KeyBounds;
import dev.distlock.LockMode;
import dev.distlock.LockKey;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;

/**
 * Every key one locked method takes, bound once: its templates, then the values of its
 * {@link LockKey} parameters. Without templates the method's own name is the key.
 */
public final class MethodKeys {

    private final List<KeyTemplate> templates;
    private final List<KeyTemplate.Part> lockKeyParts;
    private final String site;
    private final String template;

    private MethodKeys(List<KeyTemplate> templates, List<KeyTemplate.Part> lockKeyParts, String site) {
        this.templates = templates;
        this.lockKeyParts = lockKeyParts;
        this.site = site;
        StringBuilder parameters = new StringBuilder();
        for (KeyTemplate.Part part : lockKeyParts) {
            parameters.append(part instanceof KeyTemplate.Argument argument ? "{" + argument.label() + "}" : ((KeyTemplate.Literal) part).text());
        }
        this.template = String.join(", ", templates.stream().map(t -> t.source() + parameters).toList());
    }

    /**
     * @param sources the annotation's {@code value}, possibly overridden by configuration
     * @throws dev.distlock.LockDefinitionException for a template that does not fit the method
     */
    public static MethodKeys bind(List<String> sources, Method method, LockMode mode, String site) {
        List<KeyTemplate> templates = new ArrayList<>();
        String member = mode.annotation() + ".value";
        if (sources.isEmpty()) {
            String name = method.getDeclaringClass().getName() + "." + method.getName();
            templates.add(KeyTemplate.of(name, List.of(new KeyTemplate.Literal(name))));
        }
        for (String source : sources) {
            templates.add(KeyTemplate.bind(source, method, member, site));
        }
        List<KeyTemplate.Part> lockKeyParts = new ArrayList<>();
        Parameter[] parameters = method.getParameters();
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].isAnnotationPresent(LockKey.class)) {
                lockKeyParts.add(new KeyTemplate.Literal(":"));
                lockKeyParts.add(KeyTemplate.parameter(method, i, site));
            }
        }
        return new MethodKeys(List.copyOf(templates), List.copyOf(lockKeyParts), site);
    }

    /** The templates as written, for messages and tests. */
    public List<String> sources() {
        return templates.stream().map(KeyTemplate::source).toList();
    }

    /**
     * Every key as a template, {@code @LockKey} parameters as {@code {name}}, several joined by
     * {@code ", "}: what a trace may record, since it holds no value of a call.
     */
    public String template() {
        return template;
    }

    /**
     * The keys of one call, without prefix.
     *
     * @throws IllegalArgumentException when a key parameter is null or blank, or a key too long
     */
    public List<String> render(Object[] arguments) {
        List<String> keys = new ArrayList<>(templates.size());
        StringBuilder key = new StringBuilder(64);
        for (KeyTemplate template : templates) {
            key.setLength(0);
            template.render(arguments, site, key);
            for (KeyTemplate.Part part : lockKeyParts) {
                part.appendTo(key, arguments, site);
            }
            if (key.isEmpty()) {
                throw new IllegalArgumentException("The lock key of " + site + " is empty");
            }
            if (key.length() > KeyBounds.MAX_KEY_LENGTH) {
                throw new IllegalArgumentException("The lock key of " + site + " is " + key.length()
                        + " characters long; at most " + KeyBounds.MAX_KEY_LENGTH + " are allowed. Lock on an id, not on a document.");
            }
            keys.add(key.toString());
        }
        return keys;
    }
}
