package dev.distlock.internal.id;

import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * How a daily serial number is written: a template of literal text, date parts
 * {@code {date:PATTERN}} (a {@link DateTimeFormatter} pattern) and one {@code {serial}} or
 * {@code {serial:WIDTH}} (zero-padded to at least WIDTH digits, never cut). The default,
 * {@value #DEFAULT}, writes {@code 20261124-000042}.
 *
 * <p>A template is accepted only if its text can never be the same for two numbers: the date
 * parts must tell every day apart and keep one width (so that the serial's digits cannot be
 * taken for a date's, or the other way round).
 */
public final class SerialFormat {

    public static final String DEFAULT = dev.distlock.id.Ids.DEFAULT_SERIAL_FORMAT;
    /** The days over which a template must tell days apart and keep its width. */
    private static final LocalDate CHECK_FROM = LocalDate.of(2020, 1, 1);
    private static final int CHECK_DAYS = 366 * 12;
    private static final int MAX_WIDTH = 18;

    private final String template;
    /** Marks the serial's place among the parts. */
    private static final Object SERIAL = new Object();

    /** Literal text (String), date parts (DateTimeFormatter) and {@link #SERIAL}, in order. */
    private final List<Object> parts;
    private final int serialWidth;

    private SerialFormat(String template, List<Object> parts, int serialWidth) {
        this.template = template;
        this.parts = parts;
        this.serialWidth = serialWidth;
    }

    /**
     * @throws IllegalArgumentException naming what is wrong with the template
     */
    public static SerialFormat parse(String template) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("a serial format needs a {date:...} part and a {serial} part, was '" + template + "'");
        }
        List<Object> parts = new ArrayList<>();
        int serialWidth = -1;
        boolean dated = false;
        int at = 0;
        while (at < template.length()) {
            int open = template.indexOf('{', at);
            int close = template.indexOf('}', at);
            if (close >= 0 && (open < 0 || close < open)) {
                throw new IllegalArgumentException("'}' without '{' at position " + close + " of '" + template + "'");
            }
            if (open < 0) {
                parts.add(template.substring(at));
                break;
            }
            if (open > at) {
                parts.add(template.substring(at, open));
            }
            if (close < 0) {
                throw new IllegalArgumentException("'{' at position " + open + " of '" + template + "' is never closed");
            }
            String token = template.substring(open + 1, close);
            if (token.equals("serial") || token.startsWith("serial:")) {
                if (serialWidth >= 0) {
                    throw new IllegalArgumentException("'" + template + "' has more than one {serial}");
                }
                serialWidth = token.equals("serial") ? 1 : width(token.substring("serial:".length()), template);
                parts.add(SERIAL);
            } else if (token.startsWith("date:")) {
                String pattern = token.substring("date:".length());
                try {
                    parts.add(DateTimeFormatter.ofPattern(pattern, Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("{date:" + pattern + "} in '" + template + "' is not a date pattern: " + e.getMessage());
                }
                dated = true;
            } else {
                throw new IllegalArgumentException("unknown part {" + token + "} in '" + template + "'; use {date:PATTERN} and {serial} or {serial:WIDTH}");
            }
            at = close + 1;
        }
        if (serialWidth < 0 || !dated) {
            throw new IllegalArgumentException("'" + template + "' needs a {date:...} part and a {serial} part, e.g. " + DEFAULT);
        }
        SerialFormat format = new SerialFormat(template, List.copyOf(parts), serialWidth);
        format.checkDaysApart();
        return format;
    }

    private static int width(String text, String template) {
        try {
            int width = Integer.parseInt(text.strip());
            if (width >= 1 && width <= MAX_WIDTH) {
                return width;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException("{serial:" + text + "} in '" + template + "': the width is a whole number from 1 to " + MAX_WIDTH);
    }

    /** Every day of a dozen years is written differently, and each date part keeps one width. */
    private void checkDaysApart() {
        Set<String> seen = new HashSet<>();
        int[] widths = new int[parts.size()];
        java.util.Arrays.fill(widths, -1);
        for (int day = 0; day < CHECK_DAYS; day++) {
            LocalDate date = CHECK_FROM.plusDays(day);
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i) instanceof DateTimeFormatter formatter) {
                    String written = formatter.format(date);
                    if (widths[i] >= 0 && widths[i] != written.length()) {
                        throw new IllegalArgumentException("a date part of '" + template + "' changes its width ('" + written + "' on " + date
                                + "), so a serial's digits could be read as the date's; use fixed-width fields such as yyyy, MM, dd");
                    }
                    widths[i] = written.length();
                    text.append(written).append('\u0000');
                }
            }
            if (!seen.add(text.toString())) {
                throw new IllegalArgumentException("the date parts of '" + template + "' write " + date + " as an earlier day, so numbers "
                        + "would repeat; include the year, month and day (e.g. {date:yyyyMMdd})");
            }
        }
    }

    /** The text of serial {@code serial} of {@code day}. */
    public String format(LocalDate day, long serial) {
        StringBuilder text = new StringBuilder(template.length() + 8);
        for (Object part : parts) {
            if (part == SERIAL) {
                String digits = Long.toString(serial);
                for (int pad = digits.length(); pad < serialWidth; pad++) {
                    text.append('0');
                }
                text.append(digits);
            } else if (part instanceof DateTimeFormatter formatter) {
                formatter.formatTo(day, text);
            } else {
                text.append((String) part);
            }
        }
        return text.toString();
    }

    public String template() {
        return template;
    }

    @Override
    public String toString() {
        return template;
    }
}
