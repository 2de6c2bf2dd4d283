package dev.syncgc.policy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.settings.GoDuration;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.Setting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart's ValidatingAdmissionPolicy (admissionPolicy.enabled) is written by hand in CEL: it must
 * name every annotation of Setting.ALL, the values of the Java enums and GoDuration.SYNTAX, so that a
 * change on the Java side fails here before AdmissionPolicyIT runs the samples against an API server.
 */
class AdmissionPolicyTemplateTest {
  private static String template;

  @BeforeAll
  static void read() throws IOException {
    template = Files.readString(Path.of("../helm/syncgc/templates/admission-policy.yaml"));
  }

  @Test
  void checksEveryAnnotation() {
    for (Setting<?> setting : Setting.ALL) {
      assertTrue(template.contains("'" + setting.annotation() + "' in variables.written"), setting.annotation());
    }
  }

  @Test
  void enumsAreTheJavaEnumsValues() {
    String propagations = Arrays.stream(Propagation.values()).map(p -> "'" + p.value() + "'")
        .collect(Collectors.joining(", ", "[", "]"));
    String onTimeouts = Arrays.stream(OnTimeout.values()).map(o -> "'" + o.value() + "'")
        .collect(Collectors.joining(", ", "[", "]"));
    assertTrue(template.contains("v in " + propagations), propagations);
    assertTrue(template.contains("v in " + onTimeouts), onTimeouts);
  }

  @Test
  void timeoutIsTheRuleOfTheCrd() {
    assertTrue(template.contains("v.matches('" + GoDuration.SYNTAX + "') &&\n        duration(v) > duration('0s')"),
        "the timeout rule is PolicySpec.TIMEOUT_RULE's, on v: " + PolicySpec.TIMEOUT_RULE);
  }
}
