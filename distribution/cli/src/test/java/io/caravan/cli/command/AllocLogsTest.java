package io.caravan.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class AllocLogsTest {

    @Test
    void tailKeepsTheLastLinesWithOrWithoutAFinalNewline() {
        assertEquals("c\nd\n", AllocLogsCommand.lastLines("a\nb\nc\nd\n", 2));
        assertEquals("c\nd", AllocLogsCommand.lastLines("a\nb\nc\nd", 2));
        assertEquals("a\nb\n", AllocLogsCommand.lastLines("a\nb\n", 10));
        assertEquals("", AllocLogsCommand.lastLines("", 3));
    }

    @Test
    void aCharacterSplitAcrossChunksIsDecodedWhole() {
        StringWriter text = new StringWriter();
        TextSink sink = new TextSink(new PrintWriter(text));
        byte[] bytes = "größe → ok".getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            sink.write(new byte[] {b}, 0, 1); // one byte at a time: every multi-byte character is split
        }
        sink.flush();
        assertEquals("größe → ok", text.toString());
    }
}
