package io.caravan.cli.command;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Bytes from the agent (a log, a file) written to the command's text output as UTF-8, carrying a character split
 * across two chunks over to the next one.
 */
final class TextSink extends OutputStream {
    private final PrintWriter out;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    private final ByteBuffer pending = ByteBuffer.allocate(16);

    TextSink(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        ByteBuffer in;
        if (pending.position() > 0) {
            pending.flip();
            in = ByteBuffer.allocate(pending.remaining() + length).put(pending).put(bytes, offset, length);
            in.flip();
            pending.clear();
        } else {
            in = ByteBuffer.wrap(bytes, offset, length);
        }
        CharBuffer chars = CharBuffer.allocate(in.remaining() + 1);
        decoder.decode(in, chars, false);
        chars.flip();
        out.append(chars);
        pending.put(in); // at most the 3 bytes of an unfinished character
    }

    @Override
    public void flush() {
        out.flush();
    }
}
