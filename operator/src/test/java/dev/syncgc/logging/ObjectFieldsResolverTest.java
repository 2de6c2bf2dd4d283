package dev.syncgc.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.core.model.ObjectRef;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.DefaultConfiguration;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.layout.template.json.JsonTemplateLayout;
import org.apache.logging.log4j.layout.template.json.JsonTemplateLayout.EventTemplateAdditionalField;
import org.apache.logging.log4j.message.ParameterizedMessage;
import org.junit.jupiter.api.Test;

/** The operator's JSON log lines (SYNCGC_LOG_FORMAT=json) carry the object a line is about as fields. */
class ObjectFieldsResolverTest {
  private static final ObjectRef WIDGET = new ObjectRef("example.com/v1", "Widget", "team-a", "w1",
      "6f1c3f7e-2b1d-4c4e-9a55-0d3c0a7b9e21");

  /** The JSON layout as log4j2.xml configures it: the ECS template and the additional field it adds. */
  private static JsonTemplateLayout layoutOfTheConfiguration() throws Exception {
    String xml;
    try (InputStream in = ObjectFieldsResolverTest.class.getResourceAsStream("/log4j2.xml")) {
      xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Matcher field = Pattern.compile("<EventTemplateAdditionalField key=\"object\" format=\"JSON\" value='([^']*)'/>")
        .matcher(xml);
    assertTrue(field.find(), "log4j2.xml adds the object field to the JSON layout");
    assertTrue(xml.contains("eventTemplateUri=\"classpath:EcsLayout.json\""), xml);
    return JsonTemplateLayout.newBuilder().setConfiguration(new DefaultConfiguration())
        .setEventTemplateUri("classpath:EcsLayout.json")
        .setEventTemplateAdditionalFields(new EventTemplateAdditionalField[] {EventTemplateAdditionalField.newBuilder()
            .setKey("object").setFormat(EventTemplateAdditionalField.Format.JSON).setValue(field.group(1)).build()})
        .build();
  }

  private static JsonNode line(JsonTemplateLayout layout, String format, Object... parameters) throws Exception {
    String line = layout.toSerializable(Log4jLogEvent.newBuilder().setLoggerName("dev.syncgc.engine.ObjectSync")
        .setLevel(Level.INFO).setMessage(new ParameterizedMessage(format, parameters)).build());
    assertEquals(1, line.strip().lines().count(), "one JSON object per line: " + line);
    return new ObjectMapper().readTree(line);
  }

  @Test
  void aJsonLineCarriesTheObjectsKindNamespaceNameAndUidAsFields() throws Exception {
    JsonNode json = line(layoutOfTheConfiguration(), "added finalizer object={} uid={} propagation={}", WIDGET,
        WIDGET.uid(), "Synchronous");

    JsonNode object = json.path("object");
    assertEquals("Widget", object.path("kind").asText(), json.toString());
    assertEquals("team-a", object.path("namespace").asText(), json.toString());
    assertEquals("w1", object.path("name").asText(), json.toString());
    assertEquals(WIDGET.uid(), object.path("uid").asText(), json.toString());
    assertEquals("example.com/v1", object.path("apiVersion").asText(), json.toString());
    assertEquals("INFO", json.path("log.level").asText(), json.toString());
    assertTrue(json.path("message").asText().startsWith("added finalizer object=Widget"), json.toString());
  }

  @Test
  void aClusterScopedObjectHasNoNamespaceAndALineAboutNoObjectNoObjectField() throws Exception {
    JsonTemplateLayout layout = layoutOfTheConfiguration();
    JsonNode node = line(layout, "released object={}", new ObjectRef("v1", "Namespace", null, "ns1",
        "0b5e5a4e-1f7a-4d0e-8a3c-8d2e0f9e6c11")).path("object");
    assertEquals("Namespace", node.path("kind").asText());
    assertFalse(node.has("namespace"), node.toString());

    JsonNode plain = line(layout, "workers started objects={}", 12);
    assertFalse(plain.has("object"), plain.toString());
  }
}
