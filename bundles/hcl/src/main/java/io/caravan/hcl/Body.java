package io.caravan.hcl;

import java.util.List;
import java.util.Optional;

/**
 * A sequence of attributes and blocks, in source order (order matters to applications, e.g. for repeated blocks).
 *
 * @param items attributes and blocks in source order
 * @param range the body's extent: the whole file, or from a block's opening to its closing brace
 */
public record Body(List<BodyItem> items, Range range) {

    public Body {
        items = List.copyOf(items);
    }

    public List<Attribute> attributes() {
        return items.stream().filter(Attribute.class::isInstance).map(Attribute.class::cast).toList();
    }

    public List<Block> blocks() {
        return items.stream().filter(Block.class::isInstance).map(Block.class::cast).toList();
    }

    /** The attribute with this name (a body defines each name at most once). */
    public Optional<Attribute> attribute(String name) {
        return attributes().stream().filter(a -> a.name().equals(name)).findFirst();
    }

    /** The blocks of this type, in source order. */
    public List<Block> blocks(String type) {
        return blocks().stream().filter(b -> b.type().equals(type)).toList();
    }
}
