package io.caravan.api.model;

public record LogConfig(Integer maxFiles, Integer maxFileSizeMb, Boolean disabled) {
}
