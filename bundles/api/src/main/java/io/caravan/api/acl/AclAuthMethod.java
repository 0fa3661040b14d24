package io.caravan.api.acl;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;
import io.caravan.api.GoDuration;
import io.caravan.api.model.GoTime;
import io.caravan.api.model.NanoDuration;

/**
 * Nomad's {@code ACLAuthMethod}: how logins through an external identity provider (a JWT, or OIDC) become ACL tokens.
 * Durations are written as Go writes them for this object, as duration text ({@code "1h0m0s"}, empty for none), and
 * read as text or nanoseconds.
 */
public record AclAuthMethod(String name, String type, String tokenLocality, String tokenNameFormat,
                            @JsonProperty("MaxTokenTTL") @DurationText Duration maxTokenTtl,
                            @JsonProperty("Default") boolean isDefault, Config config,
                            @GoTime Instant createTime, @GoTime Instant modifyTime, long createIndex,
                            long modifyIndex) {
    public static final String JWT = "JWT";
    public static final String OIDC = "OIDC";
    public static final String LOCAL = "local";
    public static final String GLOBAL = "global";
    public static final String DEFAULT_TOKEN_NAME_FORMAT = "${auth_method_type}-${auth_method_name}";

    public AclAuthMethod {
        maxTokenTtl = maxTokenTtl == null ? Duration.ZERO : maxTokenTtl;
        config = config == null ? Config.EMPTY : config;
    }

    public AclAuthMethod withIndexes(long create, long modify) {
        return new AclAuthMethod(name, type, tokenLocality, tokenNameFormat, maxTokenTtl, isDefault, config,
                createTime, modifyTime, create, modify);
    }

    /** Nomad's {@code ACLAuthMethodStub}: what anyone may list (no configuration, so no secret). */
    public Stub stub() {
        return new Stub(name, type, isDefault, createIndex, modifyIndex);
    }

    public record Stub(String name, String type, @JsonProperty("Default") boolean isDefault, long createIndex,
                       long modifyIndex) {}

    /** Nomad's {@code ACLAuthMethodConfig}, the JWT and OIDC settings in one. */
    public record Config(@JsonProperty("JWTValidationPubKeys") List<String> jwtValidationPubKeys,
                         @JsonProperty("JWKSURL") String jwksUrl,
                         @JsonProperty("JWKSCACert") String jwksCaCert,
                         @JsonProperty("OIDCDiscoveryURL") String oidcDiscoveryUrl,
                         @JsonProperty("OIDCClientID") String oidcClientId,
                         @JsonProperty("OIDCClientSecret") String oidcClientSecret,
                         @JsonProperty("OIDCScopes") List<String> oidcScopes,
                         @JsonProperty("OIDCEnablePKCE") boolean oidcEnablePkce,
                         @JsonProperty("OIDCDisableUserInfo") boolean oidcDisableUserInfo,
                         List<String> boundAudiences,
                         @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
                         List<String> boundIssuer,
                         @JsonProperty("AllowedRedirectURIs") List<String> allowedRedirectUris,
                         @JsonProperty("DiscoveryCaPem") List<String> discoveryCaPem,
                         List<String> signingAlgs,
                         @DurationText Duration expirationLeeway,
                         @DurationText Duration notBeforeLeeway,
                         @DurationText Duration clockSkewLeeway,
                         Map<String, String> claimMappings,
                         Map<String, String> listClaimMappings,
                         boolean verboseLogging) {
        public static final Config EMPTY = new Config(null, null, null, null, null, null, null, false, false, null,
                null, null, null, null, null, null, null, null, null, false);

        public Config {
            jwtValidationPubKeys = copy(jwtValidationPubKeys);
            jwksUrl = jwksUrl == null ? "" : jwksUrl;
            jwksCaCert = jwksCaCert == null ? "" : jwksCaCert;
            oidcDiscoveryUrl = oidcDiscoveryUrl == null ? "" : oidcDiscoveryUrl;
            oidcClientId = oidcClientId == null ? "" : oidcClientId;
            oidcClientSecret = oidcClientSecret == null ? "" : oidcClientSecret;
            oidcScopes = copy(oidcScopes);
            boundAudiences = copy(boundAudiences);
            boundIssuer = copy(boundIssuer);
            allowedRedirectUris = copy(allowedRedirectUris);
            discoveryCaPem = copy(discoveryCaPem);
            signingAlgs = copy(signingAlgs);
            expirationLeeway = expirationLeeway == null ? Duration.ZERO : expirationLeeway;
            notBeforeLeeway = notBeforeLeeway == null ? Duration.ZERO : notBeforeLeeway;
            clockSkewLeeway = clockSkewLeeway == null ? Duration.ZERO : clockSkewLeeway;
            claimMappings = claimMappings == null ? Map.of() : Map.copyOf(claimMappings);
            listClaimMappings = listClaimMappings == null ? Map.of() : Map.copyOf(listClaimMappings);
        }

        private static List<String> copy(List<String> list) {
            return list == null ? List.of() : List.copyOf(list);
        }
    }

    /** A {@link Duration} as Go's duration text, {@code ""} when zero; read as text or as nanoseconds. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.RECORD_COMPONENT, ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
    @JacksonAnnotationsInside
    @JsonSerialize(using = TextSerializer.class)
    @JsonDeserialize(using = TextDeserializer.class)
    public @interface DurationText {
    }

    public static final class TextSerializer extends StdScalarSerializer<Duration> {
        private static final long serialVersionUID = 1L;

        public TextSerializer() {
            super(Duration.class);
        }

        @Override
        public void serialize(Duration value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(value.isZero() ? "" : GoDuration.format(value));
        }
    }

    /** Go's text or nanoseconds as {@link NanoDuration} reads them, and the {@code ""} Go writes for none. */
    public static final class TextDeserializer extends StdScalarDeserializer<Duration> {
        private static final long serialVersionUID = 1L;
        private final NanoDuration.Deserializer nanos = new NanoDuration.Deserializer();

        public TextDeserializer() {
            super(Duration.class);
        }

        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (p.currentToken() == JsonToken.VALUE_STRING && p.getText().isBlank()) {
                return Duration.ZERO;
            }
            return nanos.deserialize(p, ctxt);
        }
    }
}
