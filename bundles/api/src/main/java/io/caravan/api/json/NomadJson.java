package io.caravan.api.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.MapperBuilder;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The one place that configures Jackson for Nomad's wire format. Output is PascalCase ({@link NomadNaming});
 * input is matched case-insensitively and unknown fields are ignored, as Go's encoding/json does.
 */
public final class NomadJson {
    private static final ObjectMapper MAPPER = nomad(JsonMapper.builder());

    /** Nomad's {@code ?pretty} (Go's MarshalIndent): four-space indent, {@code "key": value}, {@code []} when empty. */
    private static final ObjectWriter PRETTY = MAPPER.writer(new DefaultPrettyPrinter()
            .withSeparators(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                    .withObjectEmptySeparator("")
                    .withArrayEmptySeparator(""))
            .withObjectIndenter(new DefaultIndenter("    ", "\n"))
            .withArrayIndenter(new DefaultIndenter("    ", "\n")));

    /**
     * The same format for what servers keep among themselves (the Raft log, snapshots, RPC): fields the API never
     * shows, such as a node's {@code SecretID}, are written too, because a replica must hold them.
     */
    private static final ObjectMapper INTERNAL = internal(MAPPER.copy());

    private NomadJson() {
    }

    /** Shared and thread-safe; do not reconfigure it. For servers' own storage and transport only. */
    public static ObjectMapper internalMapper() {
        return INTERNAL;
    }

    /**
     * The internal format in another of Jackson's encodings, e.g. {@code internalMapper(CBORMapper.builder())} for
     * the RPC transport. A new mapper each call: keep it.
     */
    public static <M extends ObjectMapper, B extends MapperBuilder<M, B>> ObjectMapper internalMapper(B builder) {
        return internal(nomad(builder));
    }

    private static <M extends ObjectMapper, B extends MapperBuilder<M, B>> M nomad(B builder) {
        return builder.propertyNamingStrategy(NomadNaming.INSTANCE)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_PROPERTIES)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .serializationInclusion(JsonInclude.Include.ALWAYS)
                .build();
    }

    private static ObjectMapper internal(ObjectMapper mapper) {
        // An absent property reads back as null, so null properties need not be written: log entries and
        // snapshots shrink. Map and list contents are kept as they are (a null there may mean something).
        return mapper.setDefaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                        JsonInclude.Include.ALWAYS))
                .setAnnotationIntrospector(new JacksonAnnotationIntrospector() {
                    private static final long serialVersionUID = 1L;

                    @Override
                    public JsonProperty.Access findPropertyAccess(Annotated annotated) {
                        return JsonProperty.Access.AUTO;
                    }
                });
    }

    /** Shared and thread-safe; do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static ObjectWriter writer(boolean pretty) {
        return pretty ? PRETTY : MAPPER.writer();
    }
}
