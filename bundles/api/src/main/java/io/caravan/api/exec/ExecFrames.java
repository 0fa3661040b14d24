package io.caravan.api.exec;

import java.io.IOException;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The frames of {@code GET /v1/client/allocation/:id/exec}, snake_case as Nomad's {@code ExecStreamingInput} and
 * {@code ExecStreamingOutput} are. The caller sends {@link Input}s: {@code {"stdin":{"data":b64}}},
 * {@code {"stdin":{"close":true}}}, {@code {"tty_size":{"height":h,"width":w}}}, {@code {}} (heartbeat) and, first
 * when {@code ws_handshake=true}, {@code {"version":1,"auth_token":"…"}}. The agent sends {@link Output}s:
 * {@code {"stdout":{"data":b64}}}, {@code {"stderr":{…}}}, {@code {"stdout":{"close":true}}} and last
 * {@code {"exited":true,"result":{"exit_code":n}}}.
 */
public final class ExecFrames {
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private ExecFrames() {
    }

    /** Stream data or its end; {@code data} is base64 on the wire. */
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    public record Data(@JsonProperty("data") byte[] data, @JsonProperty("close") boolean close) {
        public static Data of(byte[] bytes) {
            return new Data(bytes, false);
        }

        public static Data closed() {
            return new Data(null, true);
        }
    }

    /** A terminal's size in rows ({@code height}) and columns ({@code width}). */
    public record TtySize(@JsonProperty("height") int height, @JsonProperty("width") int width) {}

    /** How the command ended. */
    public record Result(@JsonProperty("exit_code") int exitCode) {}

    /** A frame from the caller; absent parts are null (a heartbeat has none). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Input(@JsonProperty("stdin") Data stdin, @JsonProperty("tty_size") TtySize ttySize,
                        @JsonProperty("version") Integer version, @JsonProperty("auth_token") String authToken) {
        public static Input stdin(byte[] bytes) {
            return new Input(Data.of(bytes), null, null, null);
        }

        public static Input stdinClosed() {
            return new Input(Data.closed(), null, null, null);
        }

        public static Input ttySize(int rows, int columns) {
            return new Input(null, new TtySize(rows, columns), null, null);
        }

        public static Input heartbeat() {
            return new Input(null, null, null, null);
        }

        public static Input auth(String token) {
            return new Input(null, null, 1, token);
        }

        /** The auth frame that {@code ws_handshake=true} sends first. */
        @JsonIgnore
        public boolean isAuth() {
            return version != null;
        }
    }

    /** A frame from the agent. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    public record Output(@JsonProperty("stdout") Data stdout, @JsonProperty("stderr") Data stderr,
                         @JsonProperty("exited") boolean exited, @JsonProperty("result") Result result) {
        public static Output stdout(Data data) {
            return new Output(data, null, false, null);
        }

        public static Output stderr(Data data) {
            return new Output(null, data, false, null);
        }

        public static Output exited(int exitCode) {
            return new Output(null, null, true, new Result(exitCode));
        }
    }

    public static String write(Object frame) {
        try {
            return JSON.writeValueAsString(frame);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @throws IOException for a message that is not such a frame */
    public static Input readInput(String message) throws IOException {
        return JSON.readValue(message, Input.class);
    }

    /** @throws IOException for a message that is not such a frame */
    public static Output readOutput(String message) throws IOException {
        return JSON.readValue(message, Output.class);
    }
}
