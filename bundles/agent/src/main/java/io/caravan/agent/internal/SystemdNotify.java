package io.caravan.agent.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * systemd's {@code Type=notify} protocol: {@code READY=1} once the agent serves its HTTP API, {@code RELOADING=1} (with
 * {@code MONOTONIC_USEC}, which {@code Type=notify-reload} requires) and {@code READY=1} around a reload,
 * {@code STOPPING=1} on shutdown, each a datagram to {@code $NOTIFY_SOCKET}.
 *
 * <p>The JDK's unix-domain support covers stream channels only ({@code SocketChannel}, {@code ServerSocketChannel}):
 * {@code DatagramChannel} has no {@code UNIX} family, and {@code NOTIFY_SOCKET} is a datagram socket. Without a native
 * library, the datagram is sent by systemd's own {@code systemd-notify} (on the same host as systemd), which inherits
 * the socket's name. Its messages come from its own PID, so the unit needs {@code NotifyAccess=all} (the unit file we
 * ship sets it). Where the socket is set but the binary is missing, the agent says so once and runs on.
 */
final class SystemdNotify {
    private static final Logger LOG = LoggerFactory.getLogger(SystemdNotify.class);
    static final String SOCKET_ENV = "NOTIFY_SOCKET";
    private static final long SEND_TIMEOUT_MS = 10_000;

    private final String socket;
    private final String command;
    private final AtomicBoolean warned = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();

    /**
     * @param socket the value of {@code NOTIFY_SOCKET} (a path, or {@code @name} for an abstract socket); null or
     *     empty: not started by systemd, every call does nothing
     * @param command the {@code systemd-notify} to run
     */
    SystemdNotify(String socket, String command) {
        this.socket = socket == null || socket.isEmpty() ? null : socket;
        this.command = command;
    }

    static SystemdNotify fromEnvironment() {
        return new SystemdNotify(System.getenv(SOCKET_ENV), "systemd-notify");
    }

    boolean enabled() {
        return socket != null;
    }

    void ready(String status) {
        send("READY=1", "STATUS=" + status);
    }

    /**
     * {@code MONOTONIC_USEC} is CLOCK_MONOTONIC in microseconds; on Linux, {@link System#nanoTime()} reads that clock.
     */
    void reloading() {
        send("RELOADING=1", "MONOTONIC_USEC=" + System.nanoTime() / 1_000, "STATUS=Reloading configuration");
    }

    /** Once: the signal handler says it before a graceful leave, and the exit path again. */
    void stopping() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        send("STOPPING=1", "STATUS=Shutting down");
    }

    /** Sends one message (its fields, one per line); waits, bounded, until systemd-notify is done. */
    synchronized void send(String... fields) {
        if (socket == null) {
            return;
        }
        List<String> argv = new ArrayList<>(List.of(command));
        argv.addAll(List.of(fields));
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put(SOCKET_ENV, socket);
        try {
            Process p = builder.start();
            if (!p.waitFor(SEND_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                LOG.atWarn().addKeyValue("message", fields[0]).log("systemd-notify did not finish in time");
            } else if (p.exitValue() != 0) {
                LOG.atWarn().addKeyValue("message", fields[0]).addKeyValue("exit", p.exitValue())
                        .log("systemd-notify failed: systemd was not told");
            }
        } catch (IOException e) {
            if (warned.compareAndSet(false, true)) {
                LOG.atWarn().addKeyValue("socket", socket).addKeyValue("error", e.getMessage())
                        .log(SOCKET_ENV + " is set but " + command + " cannot run: systemd is not told when the "
                                + "agent is ready, reloading or stopping (Java has no unix datagram sockets)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Tells systemd the agent is ready once its HTTP API accepts connections (the API listener opens only when the
     * API can answer), on a thread of its own; gives up after {@code limitMs}, leaving systemd's start timeout to act.
     */
    void readyWhenListening(String host, int port, long limitMs) {
        if (socket == null) {
            return;
        }
        String target = host.equals("0.0.0.0") ? "127.0.0.1" : host.equals("::") ? "::1" : host;
        Thread waiter = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limitMs);
            while (System.nanoTime() < deadline) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(target, port), 1_000);
                    ready("Agent running; HTTP API on " + host + ":" + port);
                    return;
                } catch (IOException notYet) {
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            LOG.atWarn().addKeyValue("address", host + ":" + port)
                    .log("the HTTP API did not open in time: systemd is not told the agent is ready");
        }, "caravan-systemd-ready");
        waiter.setDaemon(true);
        waiter.start();
    }
}
