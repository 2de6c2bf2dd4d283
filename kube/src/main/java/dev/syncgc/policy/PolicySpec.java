package dev.syncgc.policy;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.syncgc.core.settings.GoDuration;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.ArrayList;
import java.util.List;

/**
 * What a GarbageCollectionPolicy matches and the settings it gives the objects it matches. The CRD's
 * schema refuses what {@link PolicyTranslator} would refuse, so that a bad policy is refused when it is
 * written, not reported as Ready=False later: the annotations here, and the enums of propagation and
 * onTimeout, which the CRD takes from {@link dev.syncgc.core.settings.Propagation} and
 * {@link dev.syncgc.core.settings.OnTimeout} (PolicyCrd, in the tests, where the CRD is generated).
 * The translator still checks everything, for policies written before the schema did.
 */
@ValidationRule(value = PolicySpec.PROPAGATION_OR_KEEP_RULE, message = "propagation is required unless keep is true")
public class PolicySpec {
  /**
   * The CEL rule on {@code timeout}: what {@link GoDuration#parse} takes. The regular expression reads
   * its syntax; duration() then refuses zero (and, with an error, what overflows 2^63-1 ns).
   */
  /** The most namespaces {@code usersFrom} names (the CRD's maxItems: its CEL rule's cost stays bounded). */
  public static final int USERS_FROM_MAX = 1000;
  /** A namespace name (RFC 1123 label) or {@code *}: each entry of {@code usersFrom}. */
  public static final String USERS_FROM_ENTRY = "^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?|\\*)$";

  public static final String TIMEOUT_RULE =
      "self.matches('" + GoDuration.SYNTAX + "') && duration(self) > duration('0s')";

  /** The CEL rule on the spec: a policy that keeps the objects it matches need not opt them in. */
  public static final String PROPAGATION_OR_KEEP_RULE = "has(self.propagation) || (has(self.keep) && self.keep)";

  /**
   * Some character {@link String#isBlank()} does not count as white space (Java's
   * Character.isWhitespace: the Unicode separators but the no-break spaces, and the controls tab to
   * carriage return and 0x1C-0x1F); means the same in RE2. Unanchored: found anywhere.
   */
  public static final String NOT_BLANK = "[^\\t\\n\\x0B\\f\\r\\x1C-\\x1F\\p{Z}]|[\\x{00A0}\\x{2007}\\x{202F}]";

  @Required
  @Size(min = 1)
  @JsonPropertyDescription("Kinds the policy applies to; kind \"*\" means every kind of the group.")
  private List<GroupKindSpec> kinds = new ArrayList<>();

  @JsonPropertyDescription("Namespaces whose objects it applies to, by label; empty or absent: all.")
  private LabelSelector namespaceSelector;

  @JsonPropertyDescription("Objects it applies to, by label; empty or absent: all of the kinds.")
  private LabelSelector selector;

  @JsonPropertyDescription("Synchronous, Orphan or Background; required unless keep is true.")
  private String propagation; // an enum of Propagation's values in the CRD (PolicyCrd)

  @ValidationRule(value = TIMEOUT_RULE,
      message = "must be a duration greater than zero such as 90s, 5m or 1h30m",
      messageExpression = "'\"' + self + '\" is not a duration greater than zero such as 90s, 5m or 1h30m'")
  @JsonPropertyDescription("Deadline of a synchronous deletion, greater than zero, e.g. 90s, 5m, 1h30m"
      + " (units h, m, s, ms, us, ns; no sign, no spaces).")
  private String timeout;

  @Min(0)
  @JsonPropertyDescription("Grace period passed on every DELETE of the cascade, in seconds (0 or more).")
  private Long gracePeriodSeconds;

  @JsonPropertyDescription("What the deadline does: Release (default) lets the owner go with its dependents"
      + " remaining; Keep keeps it marked as deleted until they are gone.")
  private String onTimeout; // an enum of OnTimeout's values in the CRD (PolicyCrd)

  @JsonPropertyDescription("When several policies match an object, the highest priority wins; on a tie, the name first in order.")
  private Integer priority;

  @Size(max = USERS_FROM_MAX)
  @ValidationRule(value = "!self.exists(n, n == '*') || size(self) == 1",
      message = "* stands alone: it allows every namespace")
  @JsonPropertyDescription("On a cluster-scoped object it opts in: the namespaces whose users (syncgc.dev/uses)"
      + " hold it while it is being deleted, or [\"*\"] for every namespace; cluster-scoped users always do."
      + " Absent or empty: no namespaced user holds it. Its annotation syncgc.dev/users-from wins.")
  private List<String> usersFrom; // each a namespace name or "*" in the CRD (PolicyCrd)

  @JsonPropertyDescription("true: the objects it matches survive every syncgc cascade through them, only their"
      + " reference to the owner being deleted removed (the syncgc.dev/keep annotation wins); propagation"
      + " may then be left out.")
  private Boolean keep;

  public List<GroupKindSpec> getKinds() {
    return kinds;
  }

  public void setKinds(List<GroupKindSpec> kinds) {
    this.kinds = kinds;
  }

  public LabelSelector getNamespaceSelector() {
    return namespaceSelector;
  }

  public void setNamespaceSelector(LabelSelector namespaceSelector) {
    this.namespaceSelector = namespaceSelector;
  }

  public LabelSelector getSelector() {
    return selector;
  }

  public void setSelector(LabelSelector selector) {
    this.selector = selector;
  }

  public String getPropagation() {
    return propagation;
  }

  public void setPropagation(String propagation) {
    this.propagation = propagation;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }

  public Long getGracePeriodSeconds() {
    return gracePeriodSeconds;
  }

  public void setGracePeriodSeconds(Long gracePeriodSeconds) {
    this.gracePeriodSeconds = gracePeriodSeconds;
  }

  public String getOnTimeout() {
    return onTimeout;
  }

  public void setOnTimeout(String onTimeout) {
    this.onTimeout = onTimeout;
  }

  public List<String> getUsersFrom() {
    return usersFrom;
  }

  public void setUsersFrom(List<String> usersFrom) {
    this.usersFrom = usersFrom;
  }

  public Integer getPriority() {
    return priority;
  }

  public void setPriority(Integer priority) {
    this.priority = priority;
  }

  public Boolean getKeep() {
    return keep;
  }

  public void setKeep(Boolean keep) {
    this.keep = keep;
  }

  /** A group and a kind; the core group is "". */
  public static class GroupKindSpec {
    @JsonPropertyDescription("API group; \"\" for the core group.")
    private String group = "";

    @Required
    @Pattern(NOT_BLANK)
    @JsonPropertyDescription("Kind, or \"*\" for every kind of the group.")
    private String kind;

    @JsonPropertyDescription("Deletion wave of these objects among their owner's dependents (the highest"
        + " wave is deleted first); the syncgc.dev/deletion-wave annotation wins. Default 0.")
    private Integer deletionWave;

    public String getGroup() {
      return group;
    }

    public void setGroup(String group) {
      this.group = group;
    }

    public String getKind() {
      return kind;
    }

    public void setKind(String kind) {
      this.kind = kind;
    }

    public Integer getDeletionWave() {
      return deletionWave;
    }

    public void setDeletionWave(Integer deletionWave) {
      this.deletionWave = deletionWave;
    }
  }
}
