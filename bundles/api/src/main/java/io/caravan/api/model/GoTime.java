package io.caravan.api.model;

import com.fasterxml.jackson.annotation.JacksonAnnotationsInside;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;

/**
 * Marks an {@link Instant} written as Go's {@code time.Time}: RFC 3339 with up to nine fraction digits, trailing
 * zeros dropped ({@code time.RFC3339Nano}), in UTC. Any RFC 3339 offset is accepted on input.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.RECORD_COMPONENT, ElementType.ANNOTATION_TYPE})
@JacksonAnnotationsInside
@JsonSerialize(using = GoTime.Serializer.class)
@JsonDeserialize(using = GoTime.Deserializer.class)
public @interface GoTime {

    final class Serializer extends StdScalarSerializer<Instant> {
        private static final long serialVersionUID = 1L;
        private static final DateTimeFormatter RFC3339_NANO = new DateTimeFormatterBuilder()
                .appendPattern("uuuu-MM-dd'T'HH:mm:ss")
                .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
                .appendLiteral('Z')
                .toFormatter();

        public Serializer() {
            super(Instant.class);
        }

        @Override
        public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(RFC3339_NANO.format(value.atOffset(ZoneOffset.UTC)));
        }
    }

    final class Deserializer extends StdScalarDeserializer<Instant> {
        private static final long serialVersionUID = 1L;

        public Deserializer() {
            super(Instant.class);
        }

        @Override
        public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                return (Instant) ctxt.handleUnexpectedToken(Instant.class, p);
            }
            String text = p.getText().trim();
            try {
                return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
            } catch (DateTimeParseException e) {
                return (Instant) ctxt.handleWeirdStringValue(Instant.class, text, e.getMessage());
            }
        }
    }
}
