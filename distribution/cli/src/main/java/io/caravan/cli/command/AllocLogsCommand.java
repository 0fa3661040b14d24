package io.caravan.cli.command;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan alloc logs [-stderr] [-f] [-tail] [-n lines] [-c bytes] ALLOC [TASK]}: a task's stdout (or stderr)
 * through {@code /v1/client/fs/logs}, as plain bytes; {@code -f} keeps following until interrupted.
 */
@Command(name = "logs", description = "Stream the logs of a task.")
public final class AllocLogsCommand extends HttpCommand {
    /** What {@code -tail} shows without {@code -n} or {@code -c}, as Nomad: the last 10 lines. */
    private static final int DEFAULT_TAIL_LINES = 10;
    /** Bytes fetched per wanted line when tailing by lines: generous, the excess is cut here. */
    private static final int BYTES_PER_LINE = 1024;

    @Parameters(index = "0", paramLabel = "ALLOC", description = "An allocation ID or a unique prefix of one.")
    String alloc;

    @Parameters(index = "1", arity = "0..1", paramLabel = "TASK", description = "The task (optional with one task).")
    String taskArg;

    @Option(names = {"-task", "--task"}, description = "The task whose logs to show.")
    String task;

    @Option(names = {"-stderr", "--stderr"}, description = "Show stderr instead of stdout.")
    boolean stderr;

    @Option(names = {"-f", "--f"}, description = "Follow the log until interrupted.")
    boolean follow;

    @Option(names = {"-tail", "--tail"}, description = "Show the end of the log (with -n or -c).")
    boolean tail;

    @Option(names = {"-n", "--n"}, description = "With -tail: this many lines.")
    Integer lines;

    @Option(names = {"-c", "--c"}, description = "With -tail: this many bytes.")
    Long bytes;

    public AllocLogsCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error reading logs";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        AllocTask target = AllocTask.resolve(api, alloc, task != null ? task : taskArg, false);
        Map<String, String> query = new LinkedHashMap<>();
        query.put("task", target.task());
        query.put("type", stderr ? "stderr" : "stdout");
        query.put("plain", "true");
        query.put("follow", Boolean.toString(follow));
        String path = "/v1/client/fs/logs/" + Json.pathSegment(target.allocId());
        int wantLines = lines != null ? lines : (tail && bytes == null ? DEFAULT_TAIL_LINES : -1);
        if (tail || lines != null || bytes != null) {
            query.put("origin", "end");
            query.put("offset", Long.toString(bytes != null ? bytes : (long) wantLines * BYTES_PER_LINE));
        }
        TextSink sink = new TextSink(ctx.out());
        if (wantLines < 0 || bytes != null) {
            api.copy(path, query, sink);
        } else {
            // Tail by lines: fetch the end without following, cut to the last lines, then follow from there.
            query.put("follow", "false");
            ByteArrayOutputStream end = new ByteArrayOutputStream();
            api.copy(path, query, end);
            byte[] last = lastLines(end.toByteArray(), wantLines);
            sink.write(last, 0, last.length);
            sink.flush();
            if (follow) {
                query.put("follow", "true");
                query.put("offset", "0");
                api.copy(path, query, sink);
            }
        }
        ctx.out().flush();
        return 0;
    }

    /** The last {@code n} lines of {@code text} (a final line without a newline counts). */
    static byte[] lastLines(byte[] text, int n) {
        int end = text.length;
        int seen = 0;
        int i = end - 1;
        if (i >= 0 && text[i] == '\n') {
            i--;
        }
        for (; i >= 0; i--) {
            if (text[i] == '\n' && ++seen == n) {
                break;
            }
        }
        int from = Math.max(0, i + 1);
        byte[] out = new byte[end - from];
        System.arraycopy(text, from, out, 0, out.length);
        return out;
    }

    static String lastLines(String text, int n) {
        return new String(lastLines(text.getBytes(StandardCharsets.UTF_8), n), StandardCharsets.UTF_8);
    }
}
