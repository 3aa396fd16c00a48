package dev.distlock.internal.core;

import dev.distlock.KeyBounds;
import dev.distlock.LockDefinitionException;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;

/**
 * A lock key template bound to one method: literal text and placeholders ({@code {sku}},
 * {@code {0}}, {@code {order.customer.id}}), checked against the method's parameters when bound,
 * so that a wrong template fails the deployment rather than the first call. No expression
 * language: a placeholder can only name a parameter and read properties of it.
 */
public final class KeyTemplate {

    private final String source;
    private final List<Part> parts;

    private KeyTemplate(String source, List<Part> parts) {
        this.source = source;
        this.parts = List.copyOf(parts);
    }

    /** The template as written. */
    public String source() {
        return source;
    }

    /**
     * Parses {@code template} and binds its placeholders to {@code method}'s parameters.
     *
     * @param member how the template is named in messages, e.g. {@code @Locked.value}
     * @param site   the method in messages, e.g. {@code Shop.order(String,int)}
     * @throws LockDefinitionException naming the site, the template and the problem
     */
    public static KeyTemplate bind(String template, Method method, String member, String site) {
        if (template.isBlank()) {
            throw invalid(member, site, template, "the template is blank; to lock on the method's name, give no template");
        }
        List<Part> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '}') {
                throw invalid(member, site, template, "'}' at index " + i + " closes no placeholder");
            }
            if (c == '%') {
                // Reserved for encoded values: a literal %3A could otherwise equal an encoded ':'.
                throw invalid(member, site, template, "'%' at index " + i + " is reserved for encoded values");
            }
            if (c != '{') {
                literal.append(c);
                i++;
                continue;
            }
            int end = template.indexOf('}', i + 1);
            int nested = template.indexOf('{', i + 1);
            if (end < 0 || (nested >= 0 && nested < end)) {
                throw invalid(member, site, template, "placeholder opened at index " + i + " is not closed");
            }
            if (literal.length() > 0) {
                parts.add(new Literal(literal.toString()));
                literal.setLength(0);
            }
            parts.add(argument(template.substring(i + 1, end).strip(), method, member, site, template));
            i = end + 1;
        }
        if (literal.length() > 0) {
            parts.add(new Literal(literal.toString()));
        }
        checkOneValuePerSegment(parts, member, site, template);
        return new KeyTemplate(template, parts);
    }

    /**
     * Values are escaped so that they contain no {@code :}; two values in one {@code :}-separated
     * part of a key could still run together — {@code {x}-{y}} renders ({@code p-q}, {@code r}) and
     * ({@code p}, {@code q-r}) alike — so each part may hold one value at most.
     */
    private static void checkOneValuePerSegment(List<Part> parts, String member, String site, String template) {
        Argument previous = null;
        for (Part part : parts) {
            if (part instanceof Literal literal && literal.text().indexOf(':') >= 0) {
                previous = null;
            } else if (part instanceof Argument argument) {
                if (previous != null) {
                    throw invalid(member, site, template, "{" + previous.label() + "} and {" + argument.label()
                            + "} are not separated by ':', so two different pairs of values could make the same key; "
                            + "write e.g. {" + previous.label() + "}:{" + argument.label() + "}");
                }
                previous = argument;
            }
        }
    }

    /** A part that appends the value of a parameter, as {@link dev.distlock.LockKey} does. */
    public static KeyTemplate.Part parameter(Method method, int index, String site) {
        Parameter parameter = method.getParameters()[index];
        String label = parameter.isNamePresent() ? parameter.getName() : "#" + index;
        PropertyPath.checkRenderable(parameter.getType(), "@LockKey parameter " + label, site);
        return new Argument(index, label, PropertyPath.EMPTY);
    }

    /** A template of fixed parts; for keys built by code. */
    public static KeyTemplate of(String source, List<Part> parts) {
        return new KeyTemplate(source, parts);
    }

    public List<Part> parts() {
        return parts;
    }

    /**
     * Renders the key for one call: literals as written, argument values encoded.
     *
     * @throws IllegalArgumentException naming the parameter when its value is null or blank
     */
    public void render(Object[] arguments, String site, StringBuilder out) {
        for (Part part : parts) {
            part.appendTo(out, arguments, site);
        }
    }

    private static Part argument(String expression, Method method, String member, String site, String template) {
        if (expression.isEmpty()) {
            throw invalid(member, site, template, "empty placeholder {}");
        }
        String[] path = expression.split("\\.", -1);
        Parameter[] parameters = method.getParameters();
        int index = parameterIndex(path[0], parameters, member, site, template);
        Parameter parameter = parameters[index];
        PropertyPath properties;
        try {
            properties = PropertyPath.resolve(parameter.getType(), path, 1);
        } catch (IllegalArgumentException e) {
            throw invalid(member, site, template, "{" + expression + "}: " + e.getMessage());
        }
        String unrenderable = PropertyPath.unrenderable(properties.resultType(parameter.getType()));
        if (unrenderable != null) {
            throw invalid(member, site, template, "{" + expression + "}: " + unrenderable);
        }
        return new Argument(index, expression, properties);
    }

    private static int parameterIndex(String head, Parameter[] parameters, String member, String site, String template) {
        if (!head.isEmpty() && head.chars().allMatch(Character::isDigit)) {
            int index;
            try {
                index = Integer.parseInt(head);
            } catch (NumberFormatException e) {
                index = Integer.MAX_VALUE;
            }
            if (index >= parameters.length) {
                throw invalid(member, site, template, "{" + head + "} refers to parameter position " + head
                        + " but the method has " + parameters.length + " parameter(s)");
            }
            return index;
        }
        if (parameters.length > 0 && !parameters[0].isNamePresent()) {
            throw invalid(member, site, template, "{" + head + "} names a parameter, but the class was compiled "
                    + "without parameter names; compile with -parameters, or use the position, e.g. {0}");
        }
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].getName().equals(head)) {
                return i;
            }
        }
        List<String> names = new ArrayList<>();
        for (Parameter parameter : parameters) {
            names.add(parameter.getName());
        }
        throw invalid(member, site, template, "{" + head + "} names no parameter; the parameters are " + names);
    }

    private static LockDefinitionException invalid(String member, String site, String template, String problem) {
        return new LockDefinitionException(member + " on " + site + ": invalid key template \"" + template + "\": " + problem);
    }

    /** One piece of a rendered key. */
    public sealed interface Part permits Literal, Argument {
        void appendTo(StringBuilder out, Object[] arguments, String site);
    }

    /** Text written in the template; not encoded, it is the developer's, not the user's. */
    record Literal(String text) implements Part {
        @Override
        public void appendTo(StringBuilder out, Object[] arguments, String site) {
            out.append(text);
        }
    }

    /** The value of a parameter, or of a property path below it, encoded. */
    record Argument(int index, String label, PropertyPath path) implements Part {
        @Override
        public void appendTo(StringBuilder out, Object[] arguments, String site) {
            Object value = path.read(arguments[index], label, site);
            if (value == null) {
                throw new IllegalArgumentException("Lock key parameter '" + label + "' of " + site
                        + " is null; a lock key needs a value");
            }
            String text = value.toString();
            if (text == null || text.isBlank()) {
                throw new IllegalArgumentException("Lock key parameter '" + label + "' of " + site
                        + " is blank; a lock key needs a value");
            }
            out.append(KeyBounds.encode(text));
        }
    }
}
