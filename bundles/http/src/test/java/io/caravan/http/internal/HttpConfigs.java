package io.caravan.http.internal;

import java.lang.reflect.Proxy;
import java.util.Map;

/** Test helper: an {@link HttpConfig} with its declared defaults, some keys overridden by method name. */
final class HttpConfigs {
    private HttpConfigs() {
    }

    static HttpConfig of(Map<String, Object> overrides) {
        return (HttpConfig) Proxy.newProxyInstance(HttpConfig.class.getClassLoader(), new Class<?>[] {HttpConfig.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "annotationType" -> HttpConfig.class;
                    case "toString" -> "HttpConfig" + overrides;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> overrides.containsKey(method.getName()) ? overrides.get(method.getName())
                            : method.getDefaultValue();
                });
    }
}
