package io.caravan.api.model;

/** A soft placement preference; {@code Weight} is -100..100 (the API defaults a missing weight to 50). */
public record Affinity(String lTarget, String rTarget, String operand, Integer weight) {
}
