package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.caravan.api.model.Job;
import io.caravan.api.model.Task;

/**
 * {@code dispatch_payload}: writes a dispatched job's payload to {@code local/<file>} of each task that asks for it
 * ({@code dispatch_payload { file = "…" }}). Nomad stores payloads snappy-compressed; a payload that is not valid
 * snappy is written as it is. The file must stay inside {@code local/}.
 */
public final class DispatchPayloadHook implements TaskHook.Prestart {
    @Override
    public String name() {
        return "dispatch_payload";
    }

    @Override
    public void prestart(TaskHookContext ctx) throws IOException {
        Task task = ctx.task();
        Job job = ctx.alloc().job();
        if (task.dispatchPayload() == null || task.dispatchPayload().file() == null
                || task.dispatchPayload().file().isBlank() || job == null || job.payload() == null
                || job.payload().isEmpty()) {
            return;
        }
        Path local = ctx.allocDir().taskLocal(task.name());
        Path target;
        try {
            target = ArtifactHook.confine(local, task.dispatchPayload().file());
        } catch (ArtifactHook.ArtifactException e) {
            throw new IOException("dispatch payload file escapes the task's local directory: "
                    + task.dispatchPayload().file());
        }
        byte[] stored = job.decodePayload();
        byte[] payload = Snappy.decodeOrNull(stored);
        Files.createDirectories(target.getParent());
        Files.write(target, payload != null ? payload : stored);
    }

    /** Snappy's block format (what Go's snappy.Encode writes), decoding only. */
    static final class Snappy {
        private Snappy() {
        }

        /** The decoded bytes, or null if {@code in} is not a valid snappy block. */
        static byte[] decodeOrNull(byte[] in) {
            try {
                return decode(in);
            } catch (RuntimeException e) {
                return null;
            }
        }

        static byte[] decode(byte[] in) {
            int[] pos = {0};
            long length = varint(in, pos);
            if (length < 0 || length > 256L * 1024 * 1024) {
                throw new IllegalArgumentException("bad snappy length");
            }
            byte[] out = new byte[(int) length];
            int o = 0;
            int i = pos[0];
            while (i < in.length) {
                int tag = in[i] & 0xff;
                int kind = tag & 3;
                if (kind == 0) { // literal
                    int len = tag >>> 2;
                    i++;
                    if (len >= 60) {
                        int bytes = len - 59;
                        len = 0;
                        for (int b = 0; b < bytes; b++) {
                            len |= (in[i + b] & 0xff) << (8 * b);
                        }
                        i += bytes;
                    }
                    len += 1;
                    System.arraycopy(in, i, out, o, len);
                    i += len;
                    o += len;
                    continue;
                }
                int len;
                int offset;
                if (kind == 1) {
                    len = 4 + ((tag >>> 2) & 7);
                    offset = ((tag & 0xe0) << 3) | (in[i + 1] & 0xff);
                    i += 2;
                } else if (kind == 2) {
                    len = 1 + (tag >>> 2);
                    offset = (in[i + 1] & 0xff) | (in[i + 2] & 0xff) << 8;
                    i += 3;
                } else {
                    len = 1 + (tag >>> 2);
                    offset = (in[i + 1] & 0xff) | (in[i + 2] & 0xff) << 8 | (in[i + 3] & 0xff) << 16
                            | (in[i + 4] & 0xff) << 24;
                    i += 5;
                }
                if (offset <= 0 || offset > o || o + len > out.length) {
                    throw new IllegalArgumentException("bad snappy copy");
                }
                for (int k = 0; k < len; k++) { // overlapping copies repeat bytes, so byte by byte
                    out[o] = out[o - offset];
                    o++;
                }
            }
            if (o != out.length) {
                throw new IllegalArgumentException("bad snappy length");
            }
            return out;
        }

        private static long varint(byte[] in, int[] pos) {
            long result = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                int b = in[pos[0]++] & 0xff;
                result |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return result;
                }
            }
            throw new IllegalArgumentException("bad varint");
        }
    }
}
