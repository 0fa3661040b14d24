package io.caravan.plugin.api.driver;

import org.osgi.service.component.annotations.ComponentPropertyType;

/** Names a driver component: {@code @DriverName("raw_exec")} sets {@code caravan.driver.name=raw_exec}. */
@ComponentPropertyType
public @interface DriverName {
    String PREFIX_ = "caravan.";

    String value();
}
