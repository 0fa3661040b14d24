package io.caravan.plugin.api.driver;

/** The driver does not have this optional ability; see {@link DriverCapabilities}. */
public final class UnsupportedCapabilityException extends DriverException {
    private static final long serialVersionUID = 1L;

    public UnsupportedCapabilityException(String capability) {
        super("driver does not support " + capability);
    }
}
