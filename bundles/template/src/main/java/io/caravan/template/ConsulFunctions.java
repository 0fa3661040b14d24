package io.caravan.template;

import io.caravan.template.internal.Consul;
import java.time.Clock;
import java.util.Map;

/**
 * Go's builtins plus the functions of consul-template that jobs use most and that need no Consul, Vault or Nomad
 * data: {@code env}, {@code toJSON}, {@code toJSONPretty}, {@code parseJSON}, {@code toYAML}, {@code split},
 * {@code join}, {@code replaceAll}, {@code toLower}, {@code toUpper}, {@code toTitle}, {@code title},
 * {@code trimSpace}, {@code trimPrefix}, {@code trimSuffix}, {@code indent}, {@code contains}, {@code in},
 * {@code containsAll}, {@code containsAny}, {@code containsNone}, {@code containsNotAll}, {@code regexMatch},
 * {@code regexReplaceAll}, {@code add}, {@code subtract}, {@code multiply}, {@code divide}, {@code modulo},
 * {@code maximum}, {@code minimum}, {@code loop}, {@code parseBool}, {@code parseInt}, {@code parseFloat},
 * {@code timestamp}, {@code base64Encode}, {@code base64Decode}, {@code base64URLEncode}, {@code base64URLDecode}.
 * Arguments come in consul-template's order, made for pipes: {@code {{ .Port | add 1 }}}, {@code {{ "a,b" | split "," }}}.
 *
 * <p>The client adds its data sources ({@code nomadVar}, {@code nomadService}, ...) with {@link Functions#with}.
 * There is no {@code sockaddr}.
 */
public final class ConsulFunctions {
    private ConsulFunctions() {}

    /**
     * @param env   what {@code env "NAME"} reads (the task's environment); an absent name gives ""
     * @param clock what {@code timestamp} reads
     */
    public static Functions create(Map<String, String> env, Clock clock) {
        return Functions.builtins().with(Consul.functions(Map.copyOf(env), clock));
    }
}
