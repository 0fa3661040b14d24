package io.caravan.cli.command;

import java.io.IOException;
import java.io.Reader;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.exec.ExecFrames;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan alloc exec [-i=true] [-t] [-task NAME] [-job] [-escape '~'] ALLOC|JOB CMD ARGS...}: runs a command
 * in a task through the client's exec WebSocket and exits with its exit code. With {@code -t} on a terminal, the
 * terminal is put in raw mode ({@code stty raw -echo} on {@code /dev/tty}) and restored on exit, and its size is sent
 * first and again on each SIGWINCH; {@code ESC .} at the start of a line (the escape character, {@code ~} by default) disconnects.
 */
@Command(name = "exec", description = "Execute commands in task.")
public final class AllocExecCommand extends HttpCommand {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Nomad's clients send a heartbeat this often so proxies and the agent keep an idle session. */
    private static final long HEARTBEAT_SECONDS = 10;

    @Parameters(index = "0", paramLabel = "ALLOC", description = "An allocation ID or prefix (a job ID with -job).")
    String target;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "CMD", description = "The command and its arguments.")
    List<String> command = new ArrayList<>();

    @Option(names = {"-task", "--task"}, description = "The task to run the command in.")
    String task;

    @Option(names = {"-job", "--job"}, description = "Treat the first argument as a job ID; pick one of its running allocations.")
    boolean job;

    @Option(names = {"-i", "--i"}, arity = "0..1", fallbackValue = "true", converter = GoBool.class,
            description = "Pass stdin to the command (default true).")
    Boolean stdin = true;

    @Option(names = {"-t", "--t"}, arity = "0..1", fallbackValue = "true", converter = GoBool.class,
            description = "Allocate a pseudo-TTY (default: whether stdin is a terminal).")
    Boolean tty;

    @Option(names = {"-escape", "--escape"}, description = "Escape character for disconnecting (none to disable).")
    String escape = "~";

    public AllocExecCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "failed to exec into task";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (command.isEmpty()) {
            throw new UsageException("This command takes at least two arguments: <alloc_id> <command>");
        }
        if (escape != null && !escape.equals("none") && escape.length() != 1) {
            throw new UsageException("-escape requires one character");
        }
        Character escapeChar = escape == null || escape.equals("none") ? null : escape.charAt(0);
        boolean terminal = System.console() != null;
        boolean useTty = tty != null ? tty : terminal;
        String allocPrefix = job ? runningAllocOf(api, target) : target;
        AllocTask resolved = AllocTask.resolve(api, allocPrefix, task, false);
        Map<String, String> query = new LinkedHashMap<>();
        query.put("task", resolved.task());
        query.put("tty", Boolean.toString(useTty));
        try {
            query.put("command", JSON.writeValueAsString(command));
        } catch (IOException e) {
            throw new ApiException("cannot encode the command: " + e.getMessage());
        }
        Terminal raw = useTty && terminal ? Terminal.raw() : null;
        try {
            Session session = new Session();
            WebSocket socket = api.webSocket("/v1/client/allocation/" + Json.pathSegment(resolved.allocId())
                    + "/exec", query, session);
            ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "exec-heartbeat");
                t.setDaemon(true);
                return t;
            });
            heartbeat.scheduleAtFixedRate(() -> session.send(socket, ExecFrames.Input.heartbeat()),
                    HEARTBEAT_SECONDS, HEARTBEAT_SECONDS, TimeUnit.SECONDS);
            if (raw != null && raw.rows() > 0) {
                session.send(socket, ExecFrames.Input.ttySize(raw.rows(), raw.columns()));
                Terminal.onResize(() -> {
                    int[] size = Terminal.size();
                    if (size[0] > 0) {
                        session.send(socket, ExecFrames.Input.ttySize(size[0], size[1]));
                    }
                });
            }
            Thread input = new Thread(() -> forwardStdin(socket, session, useTty ? escapeChar : null), "exec-stdin");
            input.setDaemon(true);
            if (stdin) {
                input.start();
            } else {
                session.send(socket, ExecFrames.Input.stdinClosed());
            }
            int code = session.exit.join();
            heartbeat.shutdownNow();
            socket.abort();
            ctx.out().flush();
            ctx.err().flush();
            return code;
        } finally {
            if (raw != null) {
                raw.restore();
            }
        }
    }

    /** A running allocation of the job, for {@code -job}: any one will do, as Nomad picks one at random. */
    private static String runningAllocOf(ApiClient api, String jobId) throws ApiException {
        JsonNode allocs = api.get("/v1/job/" + Json.pathSegment(jobId) + "/allocations");
        for (JsonNode alloc : allocs) {
            if ("running".equals(Json.text(alloc.get("ClientStatus")))) {
                return Json.text(alloc.get("ID"));
            }
        }
        throw new ApiException("job \"" + jobId + "\" has no running allocations");
    }

    /** Copies stdin to the session; {@code escape} then {@code .} at the start of a line disconnects. */
    private void forwardStdin(WebSocket socket, Session session, Character escape) {
        Reader in = ctx.in();
        char[] buffer = new char[4096];
        boolean lineStart = true;
        boolean escaped = false;
        try {
            int n;
            while ((n = in.read(buffer)) >= 0 && !session.exit.isDone()) {
                StringBuilder out = new StringBuilder(n);
                for (int i = 0; i < n; i++) {
                    char c = buffer[i];
                    if (escaped) {
                        escaped = false;
                        if (c == '.') {
                            ctx.err().println("\nconnection closed");
                            ctx.err().flush();
                            session.exit.complete(0);
                            return;
                        }
                        if (c != escape) {
                            out.append(escape);
                        }
                    } else if (escape != null && lineStart && c == escape) {
                        escaped = true;
                        continue;
                    }
                    out.append(c);
                    lineStart = c == '\r' || c == '\n';
                }
                if (!out.isEmpty()) {
                    session.send(socket, ExecFrames.Input.stdin(out.toString().getBytes(StandardCharsets.UTF_8)));
                }
            }
        } catch (IOException e) {
            // stdin closed under us: end of input
        }
        session.send(socket, ExecFrames.Input.stdinClosed());
    }

    /** The agent's side: output to our streams, the exit code when it comes. */
    private final class Session implements WebSocket.Listener {
        final CompletableFuture<Integer> exit = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();
        private final CharsetDecoder stdout = decoder();
        private final CharsetDecoder stderr = decoder();
        private CompletableFuture<WebSocket> sending = null;

        private static CharsetDecoder decoder() {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE);
        }

        /** Sends one frame after the previous one (the JDK allows one outstanding send). */
        synchronized void send(WebSocket socket, ExecFrames.Input frame) {
            String text = ExecFrames.write(frame);
            CompletableFuture<WebSocket> previous = sending == null ? CompletableFuture.completedFuture(socket)
                    : sending;
            sending = previous.handle((ws, e) -> null).thenCompose(ignored -> socket.sendText(text, true));
            try {
                sending.join();
            } catch (RuntimeException e) {
                // the session is over; its end is reported by the listener
            }
        }

        @Override
        public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String message = partial.toString();
                partial.setLength(0);
                handle(message);
            }
            socket.request(1);
            return null;
        }

        private void handle(String message) {
            ExecFrames.Output frame;
            try {
                frame = ExecFrames.readOutput(message);
            } catch (IOException e) {
                return;
            }
            if (frame.stdout() != null && frame.stdout().data() != null) {
                write(ctx.out(), stdout, frame.stdout().data());
            }
            if (frame.stderr() != null && frame.stderr().data() != null) {
                write(ctx.err(), stderr, frame.stderr().data());
            }
            if (frame.exited() && frame.result() != null) {
                exit.complete(frame.result().exitCode());
            }
        }

        /** Decodes across frames: a character split between two frames is kept for the next. */
        private void write(java.io.PrintWriter out, CharsetDecoder decoder, byte[] bytes) {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            CharBuffer chars = CharBuffer.allocate(bytes.length + 1);
            decoder.decode(in, chars, false);
            chars.flip();
            out.append(chars);
            out.flush();
        }

        @Override
        public CompletionStage<?> onClose(WebSocket socket, int statusCode, String reason) {
            if (!exit.isDone()) {
                ctx.err().println("failed to exec into task: the connection closed before the command exited"
                        + (reason == null || reason.isEmpty() ? "" : ": " + reason));
                exit.complete(1);
            }
            return null;
        }

        @Override
        public void onError(WebSocket socket, Throwable error) {
            if (!exit.isDone()) {
                ctx.err().println("failed to exec into task: " + error.getMessage());
                exit.complete(1);
            }
        }
    }

    /** The local terminal in raw mode, through {@code stty} on {@code /dev/tty}; restored by {@link #restore}. */
    record Terminal(String saved, int rows, int columns) {
        static Terminal raw() {
            String saved = stty("-g").trim();
            int[] size = size();
            stty("raw", "-echo");
            return new Terminal(saved, size[0], size[1]);
        }

        /** Rows and columns of the terminal, or zeros when unknown (the remote terminal keeps its default). */
        static int[] size() {
            String[] size = stty("size").trim().split("\\s+");
            if (size.length == 2) {
                try {
                    return new int[] {Integer.parseInt(size[0]), Integer.parseInt(size[1])};
                } catch (NumberFormatException e) {
                    // not a size
                }
            }
            return new int[] {0, 0};
        }

        /** Runs {@code action} on each SIGWINCH (the JDK's signal API; skipped where the JVM does not offer it). */
        @SuppressWarnings("removal")
        static void onResize(Runnable action) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal("WINCH"), signal -> action.run());
            } catch (IllegalArgumentException | UnsupportedOperationException | LinkageError e) {
                // no SIGWINCH here: the size sent at the start stays
            }
        }

        void restore() {
            if (!saved.isEmpty()) {
                stty(saved);
            }
        }

        private static String stty(String... args) {
            List<String> command = new ArrayList<>(List.of("stty"));
            command.addAll(List.of(args));
            try {
                Process p = new ProcessBuilder(command).redirectInput(new java.io.File("/dev/tty"))
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                p.waitFor(5, TimeUnit.SECONDS);
                return out;
            } catch (IOException e) {
                return "";
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "";
            }
        }
    }
}
