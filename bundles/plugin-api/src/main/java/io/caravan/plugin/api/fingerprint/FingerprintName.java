package io.caravan.plugin.api.fingerprint;

import org.osgi.service.component.annotations.ComponentPropertyType;

/**
 * Names a fingerprinter: {@code @FingerprintName("cpu")} sets {@code caravan.fingerprint.name=cpu}. DS derives the
 * property name from this annotation's own name, which is why it is {@code FingerprintName}.
 */
@ComponentPropertyType
public @interface FingerprintName {
    String PREFIX_ = "caravan.";

    String value();
}
