package io.caravan.http.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.http.HttpForward;
import io.caravan.http.HttpForward.Answer;
import io.caravan.http.HttpForward.Call;
import io.caravan.rpc.RpcStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The serving end of {@link HttpForward#STREAM} and {@link HttpForward#WEBSOCKET}: the call runs against this agent's
 * own HTTP listener, as {@link HttpForwarding} runs plain calls, so what streams back is exactly what this agent's
 * own callers get (its routes, its ACL checks, its frames), and nothing of the streaming logic is repeated here. The
 * stream's window paces the reading: a body is read only as fast as the other side takes it.
 */
final class ForwardedStreams {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardedStreams.class);
    private static final int CHUNK = 32 * 1024;
    private static final Duration CONNECT = Duration.ofSeconds(10);
    private static final List<String> RESPONSE_HEADERS = List.of("Content-Type", "X-Nomad-Index");

    private final java.util.function.Supplier<HttpClient> http;
    private final Executor readers;

    /** @param http built at the first forward (a JDK client keeps a selector thread from its creation) */
    ForwardedStreams(java.util.function.Supplier<HttpClient> http, Executor readers) {
        this.http = http;
        this.readers = readers;
    }

    /** A call whose body streams: the head, then the body's bytes as they come; the other side failing stops it. */
    void body(URI uri, Call call, RpcStream stream) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).GET();
        ForwardedMark.forListener(call.headers()).forEach(request::header);
        CompletableFuture<HttpResponse<InputStream>> sent = http.get().sendAsync(request.build(),
                HttpResponse.BodyHandlers.ofInputStream());
        stream.receive(new RpcStream.Receiver() {
            @Override
            public CompletionStage<?> data(byte[] frame) {
                return CompletableFuture.completedFuture(null);     // the caller sends nothing on a body stream
            }

            @Override
            public void end(CaravanException error) {
                if (error != null) {
                    // The caller went away: closing the body ends the request to our listener, and its stream.
                    sent.thenAccept(response -> closeQuietly(response.body()));
                    sent.cancel(true);
                }
            }
        });
        sent.whenCompleteAsync((response, error) -> {
            if (error != null) {
                stream.fail(new CaravanException(ErrorCode.INTERNAL, "forwarded stream: " + describe(error)));
                return;
            }
            try (InputStream body = response.body()) {
                Answer head = head(response.statusCode(), response.headers().map());
                if (!head.ok()) {
                    stream.send(new Answer(head.status(), head.headers(), body.readAllBytes()).encode());
                    stream.close();
                    return;
                }
                stream.send(head.encode()).toCompletableFuture().join();
                byte[] buffer = new byte[CHUNK];
                int n;
                while ((n = body.read(buffer)) >= 0) {
                    if (n > 0) {
                        // Waits for the window: a slow reader at the far end slows this read.
                        stream.send(Arrays.copyOf(buffer, n)).toCompletableFuture().join();
                    }
                }
                stream.close();
            } catch (IOException | CompletionException e) {
                LOG.atDebug().addKeyValue("uri", call.uri()).addKeyValue("error", e.toString())
                        .log("forwarded stream ended");
                stream.fail(new CaravanException(ErrorCode.INTERNAL, "forwarded stream ended: " + describe(e)));
            }
        }, readers);
    }

    /** A WebSocket: opened to our listener; its text messages and the other side's frames relayed both ways. */
    void socket(URI uri, Call call, RpcStream stream) {
        WebSocket.Builder builder = http.get().newWebSocketBuilder().connectTimeout(CONNECT);
        ForwardedMark.forListener(call.headers()).forEach((name, value) -> {
            if (!name.equalsIgnoreCase("Content-Type")) {
                builder.header(name, value);
            }
        });
        builder.buildAsync(uri, new Relay(stream)).whenComplete((ws, error) -> {
            if (error == null) {
                stream.send(new Answer(101, Map.of(), null).encode());
                ws.request(1); // the head is queued first: only now may the socket's messages follow it
                stream.receive(new RpcStream.Receiver() {
                    @Override
                    public CompletionStage<?> data(byte[] frame) {
                        return ws.sendText(new String(frame, StandardCharsets.UTF_8), true);
                    }

                    @Override
                    public void end(CaravanException failure) {
                        if (failure == null) {
                            ws.sendClose(WebSocket.NORMAL_CLOSURE, "").whenComplete((ok, e) -> ws.abort());
                        } else {
                            ws.abort();
                        }
                    }
                });
                return;
            }
            Throwable t = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (t instanceof WebSocketHandshakeException refused) {
                // The route answered an error instead of upgrading: relay it as it is.
                HttpResponse<?> response = refused.getResponse();
                Object body = response.body();
                byte[] bytes = body instanceof String s ? s.getBytes(StandardCharsets.UTF_8)
                        : body instanceof byte[] b ? b : new byte[0];
                Answer head = head(response.statusCode(), response.headers().map());
                stream.send(new Answer(head.status(), head.headers(), bytes).encode());
                stream.close();
            } else {
                stream.fail(new CaravanException(ErrorCode.INTERNAL, "forwarded WebSocket: " + describe(t)));
            }
            stream.receive(new RpcStream.Receiver() {
                @Override
                public CompletionStage<?> data(byte[] frame) {
                    return CompletableFuture.completedFuture(null);
                }

                @Override
                public void end(CaravanException failure) {
                }
            });
        });
    }

    /** Our listener's side of the WebSocket: its messages go to the stream, read one at a time as the window allows. */
    private static final class Relay implements WebSocket.Listener {
        private static final int GOING_AWAY = 1001;
        private static final int NO_STATUS = 1005;
        private static final int INTERNAL_ERROR = 1011;
        private final RpcStream stream;
        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

        Relay(RpcStream stream) {
            this.stream = stream;
        }

        /**
         * Asks for no message yet (the JDK's default asks for one): the first frame on the stream must be the head, which
         * is sent once the socket is open, and then requests the first message.
         */
        @Override
        public void onOpen(WebSocket ws) {
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            byte[] chunk = data.toString().getBytes(StandardCharsets.UTF_8);
            partial.write(chunk, 0, chunk.length);
            if (!last) {
                ws.request(1);
                return null;
            }
            byte[] whole = partial.toByteArray();
            partial.reset();
            return stream.send(whole).whenComplete((ok, error) -> {
                if (error == null) {
                    ws.request(1);
                } else {
                    ws.abort();
                }
            });
        }

        /**
         * A normal close ends the stream; a refusal (Nomad's 1008, or 1011 for an internal error) fails it with its
         * reason, so that the far end closes its caller's socket with the same code and reason.
         */
        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            if (statusCode == WebSocket.NORMAL_CLOSURE || statusCode == GOING_AWAY || statusCode == NO_STATUS) {
                stream.close();
            } else {
                stream.fail(new CaravanException(statusCode == INTERNAL_ERROR ? ErrorCode.INTERNAL
                        : ErrorCode.PERMISSION_DENIED, reason == null || reason.isEmpty() ? "closed: " + statusCode
                        : reason));
            }
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            stream.fail(new CaravanException(ErrorCode.INTERNAL, "forwarded WebSocket: " + describe(error)));
        }
    }

    private static Answer head(int status, Map<String, List<String>> headers) {
        Map<String, String> kept = new LinkedHashMap<>();
        for (String name : RESPONSE_HEADERS) {
            headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty())
                    .findFirst().ifPresent(e -> kept.put(name, e.getValue().get(0)));
        }
        return new Answer(status, kept, null);
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // already gone
        }
    }

    private static String describe(Throwable t) {
        Throwable root = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }
}
