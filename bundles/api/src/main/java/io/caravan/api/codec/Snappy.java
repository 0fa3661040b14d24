package io.caravan.api.codec;

import java.io.ByteArrayOutputStream;

/**
 * Snappy's block format, as Go's {@code snappy.Encode} writes it: Nomad stores a dispatched job's payload this way.
 * Encoding writes literals only (valid for every reader, no compression: payloads are at most 16 KiB).
 */
public final class Snappy {
    private Snappy() {
    }

    /** The decoded bytes, or null if {@code in} is not a valid snappy block. */
    public static byte[] decodeOrNull(byte[] in) {
        try {
            return decode(in);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** @throws IllegalArgumentException (or another runtime exception) when {@code in} is not a snappy block */
    public static byte[] decode(byte[] in) {
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

    /** {@code data} as one snappy block of literals. */
    public static byte[] encode(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length + 16);
        long length = data.length;
        while (length >= 0x80) {
            out.write((int) (length & 0x7f) | 0x80);
            length >>>= 7;
        }
        out.write((int) length);
        for (int at = 0; at < data.length; at += 65536) {
            int n = Math.min(65536, data.length - at);
            int tagLength = n - 1;
            if (tagLength < 60) {
                out.write(tagLength << 2);
            } else if (tagLength < 0x100) {
                out.write(60 << 2);
                out.write(tagLength);
            } else {
                out.write(61 << 2);
                out.write(tagLength & 0xff);
                out.write(tagLength >>> 8);
            }
            out.write(data, at, n);
        }
        return out.toByteArray();
    }
}
