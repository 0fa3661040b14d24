package io.caravan.hcl;

/** An element of a {@link Body}: an {@link Attribute} or a {@link Block}. */
public sealed interface BodyItem permits Attribute, Block {

    Range range();
}
