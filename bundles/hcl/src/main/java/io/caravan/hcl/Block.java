package io.caravan.hcl;

import java.util.List;

/**
 * {@code type "label" ident { body }}.
 *
 * @param labels          label values (quoted labels unescaped), in order
 * @param typeRange       range of the type identifier
 * @param labelRanges     one range per label, including quotes
 * @param openBraceRange  range of {@code {}
 * @param closeBraceRange range of {@code }}
 * @param range           from the type to the closing brace
 */
public record Block(String type, List<String> labels, Body body, Range typeRange, List<Range> labelRanges,
                    Range openBraceRange, Range closeBraceRange, Range range) implements BodyItem {

    public Block {
        labels = List.copyOf(labels);
        labelRanges = List.copyOf(labelRanges);
    }
}
