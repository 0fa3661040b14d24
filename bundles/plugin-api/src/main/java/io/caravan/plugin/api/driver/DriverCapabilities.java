package io.caravan.plugin.api.driver;

/**
 * What a driver can do beyond start and stop. {@code fsIsolation} is Nomad's {@code none}, {@code chroot} or
 * {@code image}.
 */
public record DriverCapabilities(boolean sendSignals, boolean exec, String fsIsolation) {
    public static final String FS_ISOLATION_NONE = "none";
    public static final String FS_ISOLATION_CHROOT = "chroot";
    public static final String FS_ISOLATION_IMAGE = "image";
}
