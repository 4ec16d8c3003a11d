package dev.taskqueue.internal.handler;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Handlers on beans that Spring proxies for {@code @Transactional}: found on the proxy's target and run in the
 * proxy's transaction, which is a real one on PostgreSQL.
 */
class TaskHandlerProxyIntegrationTests {

	private static final TaskContext CONTEXT = new TaskContext(new UUID(0, 1), "q", 1, Instant.EPOCH);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withBean(TaskHandlerAnnotationBeanPostProcessor.class);

	@Test
	void handlerOnClassProxiedTransactionalBeanIsFoundAndRunsInItsTransaction() {
		transactional().withBean("classProxied", ClassProxiedHandler.class).run((context) -> {
			Object bean = context.getBean("classProxied");
			assertThat(AopUtils.isCglibProxy(bean)).isTrue();
			TaskHandlerMethod handler = registry(context).get("class-proxied");
			assertThat(handler.bean()).isSameAs(bean);
			assertThat(handler.describe()).isEqualTo("bean 'classProxied' method ClassProxiedHandler.handle(String)");
			handler.invoke("x", CONTEXT);
			assertThat(context.getBean(ClassProxiedHandler.class).transactions()).containsExactly(true);
		});
	}

	@Test
	void handlerOnInterfaceProxiedTransactionalBeanIsFoundAndRunsInItsTransaction() {
		transactional().withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean("interfaceProxied", InterfaceProxiedHandler.class)
			.run((context) -> {
				Object bean = context.getBean("interfaceProxied");
				assertThat(AopUtils.isJdkDynamicProxy(bean)).isTrue();
				TaskHandlerMethod handler = registry(context).get("interface-proxied");
				assertThat(handler.bean()).isSameAs(bean);
				handler.invoke("y", CONTEXT);
				assertThat(((Recording) bean).transactions()).containsExactly(true);
			});
	}

	@Test
	void handlerMissingFromTheInterfacesOfItsJdkProxyFailsNamingBeanAndMethod() {
		transactional().withPropertyValues("spring.aop.proxy-target-class=false")
			.withBean("hidden", HiddenFromProxy.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessage("@TaskHandler on bean 'hidden' method HiddenFromProxy.handle(String, TaskContext) is not "
						+ "declared on an interface of the bean's JDK proxy (Recording); declare it there or proxy "
						+ "the bean's class"));
	}

	private ApplicationContextRunner transactional() {
		return this.runner.withConfiguration(AutoConfigurations.of(TransactionAutoConfiguration.class))
			.withUserConfiguration(TransactionManagerConfiguration.class);
	}

	private static TaskHandlerRegistry registry(ApplicationContext context) {
		return context.getBean(TaskHandlerAnnotationBeanPostProcessor.class).getRegistry();
	}

	@Configuration(proxyBeanMethods = false)
	static class TransactionManagerConfiguration {

		@Bean
		DataSourceTransactionManager transactionManager() {
			return new DataSourceTransactionManager(new DriverManagerDataSource(TestDatabase.createDatabase()));
		}

	}

	@Transactional
	static class ClassProxiedHandler {

		private final List<Boolean> transactions = new CopyOnWriteArrayList<>();

		@TaskHandler(queue = "class-proxied")
		void handle(String payload) {
			this.transactions.add(TransactionSynchronizationManager.isActualTransactionActive());
		}

		List<Boolean> transactions() {
			return this.transactions;
		}

	}

	interface Recording {

		void handle(String payload);

		List<Boolean> transactions();

	}

	static class InterfaceProxiedHandler implements Recording {

		private final List<Boolean> transactions = new CopyOnWriteArrayList<>();

		@Override
		@Transactional
		@TaskHandler(queue = "interface-proxied")
		public void handle(String payload) {
			this.transactions.add(TransactionSynchronizationManager.isActualTransactionActive());
		}

		@Override
		public List<Boolean> transactions() {
			return this.transactions;
		}

	}

	static class HiddenFromProxy extends InterfaceProxiedHandler {

		@Override
		public void handle(String payload) {
		}

		@Transactional
		@TaskHandler(queue = "hidden")
		public void handle(String payload, TaskContext context) {
		}

	}

}
