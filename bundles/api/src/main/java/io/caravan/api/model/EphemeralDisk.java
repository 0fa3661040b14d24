package io.caravan.api.model;

public record EphemeralDisk(Boolean sticky, Boolean migrate, Integer sizeMb) {
}
