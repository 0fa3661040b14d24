package io.caravan.hcl;

import io.caravan.hcl.internal.Parser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Entry point: parses HCL native syntax into {@link HclFile}, {@link Expression} or template ASTs.
 *
 * <pre>{@code
 * HclFile file = HclParser.parse(Files.readString(path), path.toString());
 * for (Block job : file.body().blocks("job")) { ... }
 * }</pre>
 *
 * The {@code parse...} methods throw {@link HclException} carrying every error found (the parser recovers at the
 * next line and keeps going); {@link #tryParse} returns the diagnostics alongside the partial file instead.
 */
public final class HclParser {

    private HclParser() {
    }

    /**
     * Parser options.
     *
     * @param hcl1Names also accept HCL1-style attribute and block names: quoted ({@code "key" = "v"},
     *                  {@code "client" { }}) and dotted ({@code driver.allowlist = "docker"}, named
     *                  {@code driver.allowlist}). Not HCL2; needed for Nomad agent configurations, which Nomad 1.x
     *                  still parses with HCL1 and which use these forms.
     */
    public record Options(boolean hcl1Names) {
        /** The HCL2 native syntax exactly as specified. */
        public static final Options STRICT = new Options(false);
        /** HCL2 plus HCL1-style names, for Nomad agent configuration files. */
        public static final Options HCL1_NAMES = new Options(true);
    }

    /** The outcome of {@link #tryParse}: the (possibly partial) file and every diagnostic. */
    public record Result(HclFile file, List<Diagnostic> diagnostics) {
        public Result {
            diagnostics = List.copyOf(diagnostics);
        }

        public boolean hasErrors() {
            return diagnostics.stream().anyMatch(d -> d.severity() == Diagnostic.Severity.ERROR);
        }
    }

    /** Parses a configuration file, collecting diagnostics rather than throwing. */
    public static Result tryParse(String source, String filename) {
        return tryParse(source, filename, Options.STRICT);
    }

    /** Parses a configuration file with options, collecting diagnostics rather than throwing. */
    public static Result tryParse(String source, String filename, Options options) {
        List<Diagnostic> diags = new ArrayList<>();
        HclFile file = Parser.parseFile(source, filename, options.hcl1Names(), diags);
        return new Result(file, diags);
    }

    /**
     * Parses a configuration file.
     *
     * @throws HclException with every syntax error found
     */
    public static HclFile parse(String source, String filename) {
        return parse(source, filename, Options.STRICT);
    }

    /**
     * Parses a configuration file with options.
     *
     * @throws HclException with every syntax error found
     */
    public static HclFile parse(String source, String filename, Options options) {
        Result r = tryParse(source, filename, options);
        if (r.hasErrors()) {
            throw new HclException(r.diagnostics());
        }
        return r.file();
    }

    /**
     * Reads (UTF-8) and parses a configuration file; diagnostics name it by {@code path.toString()}.
     *
     * @throws HclException with every syntax error found, or the position of the first byte that is not UTF-8
     */
    public static HclFile parse(Path path) {
        try {
            return parse(decode(Files.readAllBytes(path), path.toString()), path.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Source text from a file's bytes, which must be UTF-8.
     *
     * @throws HclException naming the line and column of the first byte that is not UTF-8
     */
    public static String decode(byte[] bytes, String filename) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return decoder.decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            CharBuffer out = CharBuffer.allocate(bytes.length);
            decoder.reset().decode(in, out, true); // stops at the first bad byte
            int bad = in.position();
            String before = out.flip().toString();
            int line = 1 + (int) before.chars().filter(c -> c == '\n').count();
            String lineText = before.substring(before.lastIndexOf('\n') + 1);
            Position at = new Position(line, 1 + lineText.codePointCount(0, lineText.length()), bad);
            throw new HclException(Diagnostic.error("Invalid character encoding", "The file must be UTF-8 text, "
                    + "but the byte 0x" + String.format("%02X", bytes[bad] & 0xFF) + " here does not belong to a "
                    + "UTF-8 character.", new Range(filename, at, new Position(line, at.column() + 1, bad + 1))));
        }
    }

    /** Parses a single expression such as {@code a.b[0] + 1} (newlines inside are insignificant). */
    public static Expression parseExpression(String source, String filename) {
        List<Diagnostic> diags = new ArrayList<>();
        Expression e = Parser.parseExpression(source, filename, diags);
        if (e == null || !diags.isEmpty()) {
            throw new HclException(diags);
        }
        return e;
    }

    /**
     * Parses a standalone template: the whole text is literal except for {@code ${...}} and {@code %{...}}
     * sequences (no quote escapes), e.g. a file rendered by a {@code template} block or a JSON string value.
     */
    public static Expression.Template parseTemplate(String source, String filename) {
        List<Diagnostic> diags = new ArrayList<>();
        Expression e = Parser.parseTemplate(source, filename, diags);
        if (e == null || !diags.isEmpty()) {
            throw new HclException(diags);
        }
        return (Expression.Template) e;
    }
}
