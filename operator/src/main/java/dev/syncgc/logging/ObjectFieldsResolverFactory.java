package dev.syncgc.logging;

import org.apache.logging.log4j.core.config.plugins.Plugin;
import org.apache.logging.log4j.core.config.plugins.PluginFactory;
import org.apache.logging.log4j.layout.template.json.resolver.EventResolverContext;
import org.apache.logging.log4j.layout.template.json.resolver.EventResolverFactory;
import org.apache.logging.log4j.layout.template.json.resolver.TemplateResolverConfig;
import org.apache.logging.log4j.layout.template.json.resolver.TemplateResolverFactory;

/**
 * {@code {"$resolver": "syncgcObject"}} in a JsonTemplateLayout template: the object a log line is
 * about ({@link ObjectFieldsResolver}), found by Log4j's plugin scan (category TemplateResolverFactory).
 */
@Plugin(name = "SyncgcObjectResolverFactory", category = TemplateResolverFactory.CATEGORY)
public final class ObjectFieldsResolverFactory implements EventResolverFactory {
  private static final ObjectFieldsResolverFactory INSTANCE = new ObjectFieldsResolverFactory();

  private ObjectFieldsResolverFactory() {}

  @PluginFactory
  public static ObjectFieldsResolverFactory getInstance() {
    return INSTANCE;
  }

  @Override
  public String getName() {
    return ObjectFieldsResolver.NAME;
  }

  @Override
  public ObjectFieldsResolver create(EventResolverContext context, TemplateResolverConfig config) {
    return new ObjectFieldsResolver();
  }
}
