package io.caravan.client.http.internal;

import java.util.Optional;

import io.caravan.api.CaravanException;
import io.caravan.http.ApiRequest;

/** Query parameters read as Nomad's handlers read them (Go's {@code strconv} rules and messages). */
final class Params {
    static final String NO_FILE = "must provide a file name";
    static final String NO_TASK = "must provide task name";
    static final String NO_LOG_TYPE = "must provide log type (stdout/stderr)";
    static final String BAD_ORIGIN = "origin must be start or end";

    private Params() {
    }

    static Optional<String> nonEmpty(ApiRequest request, String name) {
        return request.query(name).filter(v -> !v.isEmpty());
    }

    static String required(ApiRequest request, String name, String message) {
        return nonEmpty(request, name).orElseThrow(() -> CaravanException.badRequest(message));
    }

    /** Go's {@code strconv.ParseBool}; absent or empty gives {@code fallback}. */
    static boolean bool(ApiRequest request, String name, boolean fallback) {
        Optional<String> value = nonEmpty(request, name);
        if (value.isEmpty()) {
            return fallback;
        }
        switch (value.get()) {
            case "1": case "t": case "T": case "TRUE": case "true": case "True":
                return true;
            case "0": case "f": case "F": case "FALSE": case "false": case "False":
                return false;
            default:
                throw CaravanException.badRequest("failed to parse " + name + " field to boolean: strconv.ParseBool: "
                        + "parsing " + quote(value.get()) + ": invalid syntax");
        }
    }

    /** A non-negative int64; absent or empty gives {@code fallback} ({@code null} makes it required). */
    static long offset(ApiRequest request, String name, Long fallback) {
        Optional<String> value = nonEmpty(request, name);
        if (value.isEmpty()) {
            if (fallback == null) {
                throw CaravanException.badRequest("error parsing " + name + ": strconv.ParseInt: parsing \"\": "
                        + "invalid syntax");
            }
            return fallback;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.get());
        } catch (NumberFormatException e) {
            throw CaravanException.badRequest("error parsing " + name + ": strconv.ParseInt: parsing "
                    + quote(value.get()) + ": invalid syntax");
        }
        if (parsed < 0) {
            throw CaravanException.badRequest(name + " must not be negative: " + parsed);
        }
        return parsed;
    }

    /** {@code start} (the default) or {@code end}; true for {@code end}. */
    static boolean fromEnd(ApiRequest request) {
        String origin = nonEmpty(request, "origin").orElse("start");
        if (origin.equals("start")) {
            return false;
        }
        if (origin.equals("end")) {
            return true;
        }
        throw CaravanException.badRequest(BAD_ORIGIN);
    }

    /** A task name as a log file prefix: one plain path segment. */
    static String taskName(ApiRequest request) {
        String task = required(request, "task", NO_TASK);
        if (task.equals(".") || task.equals("..") || task.indexOf('/') >= 0 || task.indexOf('\\') >= 0
                || task.indexOf('\0') >= 0) {
            throw CaravanException.badRequest("invalid task name " + quote(task));
        }
        return task;
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
