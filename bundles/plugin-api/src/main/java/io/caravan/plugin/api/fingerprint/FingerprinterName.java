package io.caravan.plugin.api.fingerprint;

import org.osgi.service.component.annotations.ComponentPropertyType;

/** Names a fingerprinter: {@code @FingerprinterName("cpu")} sets {@code caravan.fingerprint.name=cpu}. */
@ComponentPropertyType
public @interface FingerprinterName {
    String PREFIX_ = "caravan.";

    String value();
}
