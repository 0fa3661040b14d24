package io.caravan.cli.command;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import io.caravan.cli.Context;

/** A file named on the command line, where {@code -} means standard input (policy rules, a bootstrap secret). */
final class InputFile {
    static final String STDIN = "-";

    private InputFile() {
    }

    /** The whole text of {@code path}, or of the context's input for {@code -}. */
    static String read(Context ctx, String path) throws IOException {
        if (STDIN.equals(path)) {
            StringWriter text = new StringWriter();
            ctx.in().transferTo(text);
            return text.toString();
        }
        return Files.readString(Path.of(path));
    }

    /** Go's wording for the usual file errors; the JDK's message is often only the path. */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage();
    }
}
