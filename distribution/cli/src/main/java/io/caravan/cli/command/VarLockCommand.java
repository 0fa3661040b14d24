package io.caravan.cli.command;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan var lock [-ttl D] [-delay D] [-shell=false] [-early-return] [-backoff D] PATH [@spec] CMD...}: takes
 * the variable's lock (waiting, 1.1 TTL between tries, while another holder has it), runs the command while renewing
 * the lock every half TTL, and releases it when the command ends. Losing the lock stops the command. Exit 0 when the
 * command succeeded, 1 otherwise.
 */
@Command(name = "lock", description = "Hold a variable's lock while a command runs.")
public final class VarLockCommand extends HttpCommand {

    @Option(names = {"-ttl", "--ttl"}, paramLabel = "<duration>", description = "The lock's TTL. Default: 15s.")
    String ttl;

    @Option(names = {"-delay", "--delay"}, paramLabel = "<duration>",
            description = "How long a lock lost by expiry stays blocked. Default: 15s.")
    String delay;

    @Option(names = {"-shell", "--shell"}, arity = "0..1", fallbackValue = "true", converter = GoBool.class,
            paramLabel = "<bool>", description = "Run the command through $SHELL (else /bin/sh) -c. Default: true.")
    Boolean shell;

    @Option(names = {"-early-return", "--early-return"},
            description = "Give up at once when another holder has the lock.")
    boolean earlyReturn;

    @Option(names = {"-backoff", "--backoff"}, paramLabel = "<duration>",
            description = "The wait between tries to take the lock. Default: 1.1 times the TTL.")
    String backoff;

    @Option(names = {"-max-retry", "--max-retry"}, paramLabel = "<n>", defaultValue = "5",
            description = "How many failed renewals (server errors) to ride out before giving up. Default: 5.")
    int maxRetry;

    @Option(names = {"-verbose", "--verbose"}, description = "Say what is done on standard error.")
    boolean verbose;

    @Parameters(arity = "0..*", paramLabel = "ARGS", description = "PATH, an optional @spec, then the command.")
    List<String> args = new ArrayList<>();

    /** Copying the child's output; joined before the command returns, so nothing it printed is lost. */
    private final List<Thread> pumps = new ArrayList<>();

    public VarLockCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Lock error";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        String namespace = connection.namespace(ctx);
        if (namespace.equals("*")) {
            ctx.err().println(Vars.ERR_WILDCARD);
            return 1;
        }
        if (args.size() < 2) {
            ctx.err().println("Not enough arguments (expected >2, got " + args.size() + ")");
            return 1;
        }
        List<String> rest = new ArrayList<>(args);
        ObjectNode variable = NomadJson.mapper().createObjectNode();
        String path = "";
        try {
            String first = rest.remove(0);
            if (first.startsWith("@")) {
                variable = spec(first.substring(1));
            } else {
                path = Vars.sanitize(first);
            }
            if (!rest.isEmpty() && rest.get(0).startsWith("@")) {
                variable = spec(rest.remove(0).substring(1));
            }
        } catch (IllegalArgumentException e) {
            ctx.err().println(e.getMessage());
            return 1;
        }
        if (!path.isEmpty()) {
            variable.put("Path", path);
        }
        variable.put("Namespace", namespace);
        if (variable.path("Path").asText().isEmpty()) {
            ctx.err().println("Failed to parse variable data: missing variable path");
            return 1;
        }
        if (rest.isEmpty()) {
            ctx.err().println("Not enough arguments: a command to run is missing");
            return 1;
        }
        Duration lockTtl;
        try {
            lockTtl = GoDuration.parse(ttl == null ? "15s" : ttl);
        } catch (IllegalArgumentException e) {
            ctx.err().println("Invalid TTL: " + e.getMessage());
            return 1;
        }
        try {
            GoDuration.parse(delay == null ? "15s" : delay);
        } catch (IllegalArgumentException e) {
            ctx.err().println("Invalid Lock Delay: " + e.getMessage());
            return 1;
        }
        Duration wait;
        try {
            wait = backoff == null ? lockTtl.plus(lockTtl.dividedBy(10)) : GoDuration.parse(backoff);
        } catch (IllegalArgumentException e) {
            ctx.err().println("Invalid backoff: " + e.getMessage());
            return 1;
        }
        ObjectNode lock = variable.putObject("Lock");
        lock.put("TTL", ttl == null ? "15s" : ttl);
        lock.put("LockDelay", delay == null ? "15s" : delay);
        String url = Vars.url(variable.path("Path").asText());

        say("Attempting to acquire lock");
        String lockId = acquire(api, url, namespace, variable, wait);
        if (lockId == null) {
            ctx.err().println("Lock error:lock is held by another holder");
            return 1;
        }
        say("Variable locked, ready to execute: " + String.join(" ", rest));
        AtomicReference<String> lost = new AtomicReference<>();
        ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "var-lock-renew");
            t.setDaemon(true);
            return t;
        });
        Process child;
        try {
            child = start(rest);
        } catch (IOException e) {
            release(api, url, namespace, lockId);
            renewer.shutdownNow();
            ctx.err().println("Lock error:" + e.getMessage());
            return 1;
        }
        long every = Math.max(1, lockTtl.toMillis() / 2);
        int[] failures = {0};
        renewer.scheduleAtFixedRate(() -> {
            try {
                ApiClient.Answer renewed = api.call("PUT", url, query(namespace, "lock-renew"),
                        holder(lockId), 404, 409);
                if (renewed.status() >= 400) {
                    lost.set("lock lost: the renewal was refused (" + renewed.status() + ")");
                    stop(child);
                }
                failures[0] = 0;
            } catch (ApiException e) {
                if (++failures[0] > maxRetry) {
                    lost.set("lock lost: " + e.getMessage());
                    stop(child);
                }
            }
        }, every, every, TimeUnit.MILLISECONDS);
        int code;
        try {
            code = child.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop(child);
            code = -1;
        } finally {
            renewer.shutdownNow();
        }
        for (Thread pump : pumps) {
            try {
                pump.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (lost.get() != null) {
            ctx.err().println("Lock error:" + lost.get());
            return 1;
        }
        say("Releasing the lock");
        release(api, url, namespace, lockId);
        if (code != 0) {
            ctx.err().println("Lock error:exit status " + code);
            return 1;
        }
        return 0;
    }

    /** Takes the lock, trying again after {@code wait} while someone else holds it; null with -early-return. */
    private String acquire(ApiClient api, String url, String namespace, ObjectNode variable, Duration wait)
            throws ApiException {
        while (true) {
            ApiClient.Answer answer = api.call("PUT", url, query(namespace, "lock-acquire"),
                    variable, 409);
            if (answer.status() == 200) {
                return answer.body().path("Lock").path("ID").asText();
            }
            if (earlyReturn) {
                return null;
            }
            say("Lock is held elsewhere; trying again in " + GoDuration.format(wait));
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ApiException("interrupted while waiting for the lock");
            }
        }
    }

    /** Stops the command and what it started (a shell's children too, which a shell may not pass SIGTERM on to). */
    private static void stop(Process child) {
        // The shell first (so it does not report its child's end), then the children it leaves behind.
        List<ProcessHandle> started = child.descendants().toList();
        child.destroy();
        started.forEach(ProcessHandle::destroy);
    }

    private void release(ApiClient api, String url, String namespace, String lockId) {
        try {
            api.call("PUT", url, query(namespace, "lock-release"), holder(lockId), 404, 409);
        } catch (ApiException e) {
            ctx.err().println("Error releasing the lock: " + e.getMessage());
        }
    }

    /** The namespace, then the operation as a flag (the API looks only at its presence). */
    private static Map<String, String> query(String namespace, String operation) {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("namespace", namespace);
        query.put(operation, "true");
        return query;
    }

    private static JsonNode holder(String lockId) {
        ObjectNode body = NomadJson.mapper().createObjectNode();
        body.putObject("Lock").put("ID", lockId);
        return body;
    }

    private ObjectNode spec(String file) {
        String format = file.endsWith(".json") ? "json" : file.endsWith(".hcl") ? "hcl" : null;
        if (format == null) {
            throw new IllegalArgumentException("Unable to determine format of " + file
                    + "; Use the -in flag to specify it.");
        }
        try {
            return Vars.parseSpec(Files.readString(ctx.file(file)), format, file);
        } catch (IOException e) {
            throw new IllegalArgumentException("Error reading \"" + file + "\": " + InputFile.reason(e));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Failed to parse variable data: " + e.getMessage());
        }
    }

    /** The command, through the shell unless -shell=false; its output goes to ours. */
    private Process start(List<String> command) throws IOException {
        List<String> argv = new ArrayList<>();
        if (shell == null || shell) {
            String sh = ctx.env("SHELL");
            argv.add(sh == null ? "/bin/sh" : sh);
            argv.add("-c");
            argv.add(String.join(" ", command));
        } else {
            argv.addAll(command);
        }
        ProcessBuilder builder = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.INHERIT);
        builder.directory(ctx.file(".").toFile());
        Process process = builder.start();
        pumps.add(pump(process.getInputStream(), ctx.out()));
        pumps.add(pump(process.getErrorStream(), ctx.err()));
        return process;
    }

    private static Thread pump(InputStream from, PrintWriter to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (from) {
                for (int n; (n = from.read(buffer)) >= 0; ) {
                    synchronized (to) {
                        to.print(new String(buffer, 0, n, StandardCharsets.UTF_8));
                        to.flush();
                    }
                }
            } catch (IOException e) {
                // the child's pipe closed
            }
        }, "var-lock-output");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void say(String message) {
        if (verbose) {
            ctx.err().println(message);
        }
    }
}
