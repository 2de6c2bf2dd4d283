package dev.syncgc.e2e.support;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A fresh namespace per test, deleted (without waiting) after it. Use as a test method parameter
 * in a class annotated {@code @ExtendWith(TestNamespace.Extension.class)}. With
 * {@code SYNCGC_E2E_KEEP_FAILED} set, the namespaces of failed tests are kept for inspection.
 */
public record TestNamespace(String name) {

  @Override
  public String toString() {
    return name;
  }

  /** Resolves {@link TestNamespace} parameters; every parameter of one test gets the same namespace. */
  public static final class Extension implements ParameterResolver, AfterEachCallback {
    private static final ExtensionContext.Namespace STORE =
        ExtensionContext.Namespace.create(Extension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
      return parameter.getParameter().getType() == TestNamespace.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
      return context.getStore(STORE).getOrComputeIfAbsent("namespace", key -> new TestNamespace(
          Namespaces.create(TestCluster.get().client(), context.getRequiredTestClass().getSimpleName()
              + "#" + context.getRequiredTestMethod().getName())), TestNamespace.class);
    }

    @Override
    public void afterEach(ExtensionContext context) {
      TestNamespace namespace = context.getStore(STORE).remove("namespace", TestNamespace.class);
      boolean keep = context.getExecutionException().isPresent()
          && TestCluster.setting("SYNCGC_E2E_KEEP_FAILED") != null;
      if (namespace != null && !keep) {
        Namespaces.deleteAsync(TestCluster.get().client(), namespace.name());
      }
    }
  }
}
