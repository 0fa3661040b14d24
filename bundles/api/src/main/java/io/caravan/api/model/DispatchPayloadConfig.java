package io.caravan.api.model;

public record DispatchPayloadConfig(String file) {
}
