package io.caravan.api.model;

/** A host volume a client offers ({@code ID} is set for dynamic host volumes). */
public record HostVolumeInfo(String path, boolean readOnly, String id) {
}
