package io.caravan.client.http.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.exec.ExecFrames;
import io.caravan.http.WebSocketBody;
import io.caravan.http.WebSocketPeer;
import io.caravan.plugin.api.driver.ExecSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code alloc exec} session on its WebSocket: the caller's frames go to the command's stdin and terminal, its
 * stdout and stderr come back as frames, then {@code exited} with the exit code, and the connection closes. The
 * caller going away kills the command. A session {@link #awaitingToken awaiting its token} starts its command only
 * once the first message's token passed the checks.
 */
final class ExecSocket implements WebSocketBody, WebSocketBody.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(ExecSocket.class);
    private static final int CHUNK = 32 * 1024;
    /** A session whose upgrade never completes (a broken handshake) does not keep its command. */
    private static final long OPEN_DEADLINE_SECONDS = 30;

    /** Nomad's close code for a refused call (its clients show the reason): policy violation; 1011 for a 500. */
    static final int REFUSED = 1008;
    static final int INTERNAL = 1011;

    private volatile ExecSession session;
    /** The checks and the start of a session awaiting its token; null once started (or for one started already). */
    private volatile Function<String, ExecSession> starter;
    private final boolean handshake;
    private final String requestToken;
    private final ExecutorService pumps;
    private final Set<ExecSocket> open;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicBoolean opened = new AtomicBoolean();
    private volatile WebSocketPeer peer;
    private volatile boolean authenticated;

    ExecSocket(ExecSession session, boolean handshake, String requestToken, ExecutorService pumps,
               Set<ExecSocket> open) {
        this.session = session;
        this.handshake = handshake;
        this.requestToken = requestToken;
        this.pumps = pumps;
        this.open = open;
        open.add(this);
        CompletableFuture.delayedExecutor(OPEN_DEADLINE_SECONDS, TimeUnit.SECONDS).execute(() -> {
            if (!opened.get() || this.session == null) {
                refuse(REFUSED, "no auth frame in " + OPEN_DEADLINE_SECONDS + " s");
            }
        });
    }

    /**
     * A session whose token comes in the first message ({@code {"version":1,"auth_token":"…"}}): {@code starter}
     * authenticates that token, checks it and starts the command, or throws (a {@link CaravanException} says why).
     */
    static ExecSocket awaitingToken(Function<String, ExecSession> starter, ExecutorService pumps,
                                    Set<ExecSocket> open) {
        ExecSocket socket = new ExecSocket(null, true, null, pumps, open);
        socket.starter = starter;
        return socket;
    }

    @Override
    public Listener open(WebSocketPeer peer) {
        this.peer = peer;
        opened.set(true);
        if (ended.get()) {
            peer.close();
            return this;
        }
        if (session != null) {
            run(peer);
        }
        return this;
    }

    /** Pumps the command's output to {@code peer} until it exits. */
    private void run(WebSocketPeer peer) {
        ExecSession session = this.session;
        try {
            CompletableFuture<Void> out = pump(session.stdout(), ExecFrames.Output::stdout);
            CompletableFuture<Void> err = pump(session.stderr(), ExecFrames.Output::stderr);
            // Exited goes last, after every byte of output, as Nomad's clients expect.
            CompletableFuture.allOf(out, err).thenCombine(session.exitCode().toCompletableFuture(), (v, code) -> code)
                    .whenComplete((code, error) -> {
                        if (code != null) {
                            peer.send(ExecFrames.write(ExecFrames.Output.exited(code)));
                        }
                        peer.close();
                        finish();
                    });
        } catch (RejectedExecutionException e) {
            end();
        }
    }

    private CompletableFuture<Void> pump(InputStream in, Function<ExecFrames.Data, ExecFrames.Output> frame) {
        return CompletableFuture.runAsync(() -> {
            byte[] buffer = new byte[CHUNK];
            try (in) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    peer.send(ExecFrames.write(frame.apply(ExecFrames.Data.of(Arrays.copyOf(buffer, n)))));
                }
            } catch (IOException e) {
                // the command was killed: its pipes closed under us
            }
            peer.send(ExecFrames.write(frame.apply(ExecFrames.Data.closed())));
        }, pumps);
    }

    @Override
    public void text(String message) {
        ExecFrames.Input input;
        try {
            input = ExecFrames.readInput(message);
        } catch (IOException e) {
            LOG.atDebug().addKeyValue("error", e.getMessage()).log("alloc exec: dropped a frame that is not one");
            return;
        }
        Function<String, ExecSession> start = starter;
        if (start != null) {
            begin(start, input);
            return;
        }
        if (input.isAuth()) {
            accept(input.authToken());
            return;
        }
        ExecSession session = this.session;
        if (session == null) {
            return;
        }
        try {
            OutputStream stdin = session.stdin();
            if (input.stdin() != null) {
                if (input.stdin().data() != null && input.stdin().data().length > 0) {
                    stdin.write(input.stdin().data());
                    stdin.flush();
                }
                if (input.stdin().close()) {
                    stdin.close();
                }
            }
        } catch (IOException e) {
            // the command has exited or closed its input
        }
        if (input.ttySize() != null) {
            ExecFrames.TtySize size = input.ttySize();
            pumps.execute(() -> session.resize(size.height(), size.width()));
        }
    }

    /**
     * The {@code ws_handshake} auth frame. The call was authorised before the upgrade with the identity it came
     * with (its header token, or anonymous); a frame naming another token than that header's is refused rather than
     * ignored, and so is a second auth frame.
     */
    private void accept(String token) {
        boolean conflicting = token != null && !token.isEmpty() && requestToken != null
                && !token.equals(requestToken);
        if (authenticated || conflicting) {
            LOG.atWarn().addKeyValue("ws_handshake", handshake)
                    .log("alloc exec: a second auth frame, or one with another token than the request's; closing");
            end();
            return;
        }
        authenticated = true;
    }

    /**
     * The first message of a session awaiting its token: it must be the auth frame, and its token must pass the
     * checks; anything else closes the socket with Nomad's close code and the reason, and no command starts. Runs on
     * the connection's thread: the messages after it wait until the command runs.
     */
    private void begin(Function<String, ExecSession> start, ExecFrames.Input first) {
        starter = null;
        if (!first.isAuth() || first.version() == null || first.version() != 1) {
            refuse(REFUSED, "unexpected handshake value: " + first.version());
            return;
        }
        ExecSession started;
        try {
            started = start.apply(first.authToken());
        } catch (CaravanException e) {
            LOG.atInfo().addKeyValue("error", e.getMessage()).log("alloc exec: refused at the handshake");
            refuse(e.code() == ErrorCode.INTERNAL ? INTERNAL : REFUSED, e.getMessage());
            return;
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).log("alloc exec: the handshake failed");
            refuse(INTERNAL, "internal error");
            return;
        }
        session = started;
        authenticated = true;
        if (ended.get()) {
            started.kill();      // the caller left while the command started
            return;
        }
        run(peer);
    }

    /** Closes the connection with {@code status} and {@code reason}; kills the command, if any runs. */
    private void refuse(int status, String reason) {
        if (ended.compareAndSet(false, true)) {
            ExecSession s = session;
            if (s != null) {
                s.kill();
            }
            WebSocketPeer p = peer;
            if (p != null) {
                p.close(status, reason);
            }
            open.remove(this);
        }
    }

    @Override
    public void closed() {
        end();
    }

    /** Kills the command (if it still runs) and closes the connection. */
    void end() {
        if (ended.compareAndSet(false, true)) {
            ExecSession s = session;
            if (s != null) {
                s.kill();
            }
            WebSocketPeer p = peer;
            if (p != null) {
                p.close();
            }
            open.remove(this);
        }
    }

    private void finish() {
        ended.set(true);
        open.remove(this);
    }
}
