/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.history;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonpCharacterEscapes;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The JSON form of a {@link History}'s lines, through Jackson: one flat object per line, {@code
 * {"type":"op",...}} for an {@link Op} and {@code {"type":"nemesis",...}} for a {@link
 * NemesisEvent}, with {@link Op#NONE} written as {@code null}.
 *
 * <p>Reading is strict, so a misspelt or foreign line fails loudly instead of being half
 * understood: unknown, duplicate and missing members, a value of the wrong JSON type (a fraction
 * or a string where a whole number belongs, a number where a string belongs, an unknown enum
 * name), a {@code null} where none is allowed and text after the object are all rejected with an
 * {@link IllegalArgumentException} naming what was wrong.
 */
final class JsonLines {

    private static final ObjectMapper MAPPER = JsonMapper.builder(
                    // U+2028 and U+2029 are valid in JSON but break JavaScript-based viewers: escape them.
                    new JsonFactoryBuilder()
                            .characterEscapes(JsonpCharacterEscapes.instance())
                            .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(
                    DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
                    DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
                    DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES,
                    DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            // Op.fromJson and NemesisEvent.fromJson accept a line without its "type".
            .enable(MapperFeature.USE_BASE_TYPE_AS_DEFAULT_IMPL)
            .withCoercionConfig(
                    LogicalType.Textual,
                    c -> c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                            .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .build();

    private JsonLines() {}

    /** One line of a history file: an op or a nemesis event, told apart by {@code "type"}. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
    @JsonSubTypes({
        @JsonSubTypes.Type(value = OpLine.class, name = "op"),
        @JsonSubTypes.Type(value = EventLine.class, name = "nemesis")
    })
    sealed interface Line permits OpLine, EventLine {}

    /**
     * An {@link Op} as written: {@link Op#NONE} as {@code null}, and the lock family's members left
     * out while they hold a plain lock's defaults (so such a line reads as it did before they
     * existed). Those members may be absent when read, but not {@code null}, except the two
     * timestamps.
     */
    @JsonPropertyOrder({
        "client", "lock", "invokeNanos", "completeNanos", "outcome", "failure", "token",
        "deadlineNanos", "releaseNanos", "lostNanos", "actNanos", "wrote", "fencingToken", "kind",
        "resources", "queuedNanos", "roundNanos"
    })
    record OpLine(
            @JsonProperty(required = true) int client,
            @JsonProperty(required = true) String lock,
            @JsonProperty(required = true) Long invokeNanos,
            @JsonProperty(required = true) Long completeNanos,
            @JsonProperty(required = true) Op.Outcome outcome,
            @JsonProperty(required = true) String failure,
            @JsonProperty(required = true) String token,
            @JsonProperty(required = true) Long deadlineNanos,
            @JsonProperty(required = true) Long releaseNanos,
            @JsonProperty(required = true) Long lostNanos,
            @JsonProperty(required = true) Long actNanos,
            @JsonProperty(required = true) boolean wrote,
            @JsonProperty(required = true) Long fencingToken,

            @JsonInclude(JsonInclude.Include.NON_NULL) @JsonDeserialize(using = AbsentOrSet.class)
            Op.Kind kind,

            @JsonInclude(JsonInclude.Include.NON_NULL) @JsonDeserialize(using = AbsentOrSet.class)
            List<String> resources,

            @JsonInclude(JsonInclude.Include.NON_NULL) Long queuedNanos,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long roundNanos)
            implements Line {

        static OpLine of(Op op) {
            return new OpLine(
                    op.client(),
                    op.lock(),
                    boxed(op.invokeNanos()),
                    boxed(op.completeNanos()),
                    op.outcome(),
                    op.failure(),
                    op.token(),
                    boxed(op.deadlineNanos()),
                    boxed(op.releaseNanos()),
                    boxed(op.lostNanos()),
                    boxed(op.actNanos()),
                    op.wrote(),
                    boxed(op.fencingToken()),
                    op.kind() == Op.Kind.LOCK ? null : op.kind(),
                    op.resources().isEmpty() ? null : op.resources(),
                    boxed(op.queuedNanos()),
                    boxed(op.roundNanos()));
        }

        Op toOp() {
            return new Op(
                    client,
                    notNull("lock", lock),
                    unboxed(invokeNanos),
                    unboxed(completeNanos),
                    notNull("outcome", outcome),
                    failure,
                    token,
                    unboxed(deadlineNanos),
                    unboxed(releaseNanos),
                    unboxed(lostNanos),
                    unboxed(actNanos),
                    wrote,
                    unboxed(fencingToken),
                    kind == null ? Op.Kind.LOCK : kind,
                    resources == null ? List.of() : resources,
                    unboxed(queuedNanos),
                    unboxed(roundNanos));
        }
    }

    /** A {@link NemesisEvent} as written; every member is required, and only the detail may be null. */
    @JsonPropertyOrder({"atNanos", "kind", "node", "detail"})
    record EventLine(
            @JsonProperty(required = true) long atNanos,
            @JsonProperty(required = true) String kind,
            @JsonProperty(required = true) int node,
            @JsonProperty(required = true) String detail)
            implements Line {

        static EventLine of(NemesisEvent e) {
            return new EventLine(e.atNanos(), e.kind(), e.node(), e.detail());
        }

        NemesisEvent toEvent() {
            return new NemesisEvent(atNanos, notNull("kind", kind), node, detail);
        }
    }

    /**
     * Reads a member that may be left out (it then reads as {@code null}, and its default applies)
     * but, when present, must hold a value of the member's type: an explicit {@code null} fails.
     */
    static final class AbsentOrSet extends StdDeserializer<Object> implements ContextualDeserializer {

        private final transient BeanProperty member;

        AbsentOrSet() {
            this(null);
        }

        private AbsentOrSet(BeanProperty member) {
            super(Object.class);
            this.member = member;
        }

        @Override
        public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty member) {
            return new AbsentOrSet(member);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            return ctxt.readValue(p, member.getType());
        }

        @Override
        public Object getNullValue(DeserializationContext ctxt) throws JsonMappingException {
            throw InvalidNullException.from(ctxt, member.getFullName(), member.getType());
        }

        @Override
        public Object getAbsentValue(DeserializationContext ctxt) {
            return null;
        }
    }

    /** One line of JSON, without a line break. */
    static String write(Line line) {
        try {
            return MAPPER.writeValueAsString(line);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // plain records of strings and numbers always serialize
        }
    }

    /**
     * Reads one line as {@code type}: {@link Line} needs the line's {@code "type"}; {@link OpLine}
     * and {@link EventLine} take a line without one, but not one of the other type.
     *
     * @throws IllegalArgumentException when the line is not such an object
     */
    static <T extends Line> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at column " + at.getColumnNr();
            throw new IllegalArgumentException("bad JSON" + where + ": " + e.getOriginalMessage() + ": " + json, e);
        }
    }

    /** {@code s} as a JSON string literal (escaped, on one line), or {@code null}. */
    static String quote(String s) {
        try {
            return MAPPER.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Long boxed(long nanos) {
        // null reads better than -9223372036854775808 and survives tools that parse numbers as doubles.
        return nanos == Op.NONE ? null : nanos;
    }

    private static long unboxed(Long nanos) {
        return nanos == null ? Op.NONE : nanos;
    }

    private static <T> T notNull(String member, T value) {
        if (value == null) {
            throw new IllegalArgumentException("\"" + member + "\" is null");
        }
        return value;
    }
}
