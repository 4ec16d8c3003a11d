package dev.taskqueue.benchmark;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Notes the text of every statement an instance sends through its {@link DataSource}, as the application wrote it
 * (constants in place, {@code ?} for parameters), and the type pgjdbc gives each parameter, so that W10 can plan
 * exactly what the dashboard ran ({@link PlanShapes}): the texts {@code pg_stat_statements} keeps have their constants
 * replaced by parameters, and a partial index whose predicate names a constant (the held tasks'
 * {@code claimed_by = '00000000-…'}) cannot serve such a text's plan.
 */
final class StatementRecorder implements BeanPostProcessor {

	private static final Set<String> RECORDED = Set.of("prepareStatement", "prepareCall", "execute", "executeQuery",
			"executeUpdate", "executeLargeUpdate", "addBatch");

	private final Map<String, SortedMap<Integer, String>> statements = new ConcurrentHashMap<>();

	/** The statements sent since the last {@link #clear()}, each with its parameters' types in order. */
	Map<String, SortedMap<Integer, String>> statements() {
		return Map.copyOf(this.statements);
	}

	void clear() {
		this.statements.clear();
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		return (bean instanceof DataSource dataSource) ? proxy(DataSource.class, dataSource, null) : bean;
	}

	@SuppressWarnings("unchecked")
	private <T> T proxy(Class<T> type, T target, String preparedText) {
		InvocationHandler handler = (proxy, method, args) -> {
			String name = method.getName();
			String text = (args != null && args.length > 0 && args[0] instanceof String sql && RECORDED.contains(name))
					? sql : null;
			if (text != null) {
				this.statements.computeIfAbsent(text, (key) -> new TreeMap<>());
			}
			if (preparedText != null && name.startsWith("set") && args != null && args.length >= 2
					&& args[0] instanceof Integer index) {
				String parameterType = parameterType(name, args);
				SortedMap<Integer, String> types = this.statements.computeIfAbsent(preparedText, (key) -> new TreeMap<>());
				synchronized (types) {
					types.put(index, parameterType);
				}
			}
			Object result = invoke(method, target, args);
			if (result instanceof Connection connection && type == DataSource.class) {
				return proxy(Connection.class, connection, null);
			}
			if (result instanceof PreparedStatement statement && text != null && type == Connection.class) {
				return proxy(PreparedStatement.class, statement, text);
			}
			if (result instanceof Statement statement && name.equals("createStatement")) {
				return proxy(Statement.class, statement, null);
			}
			return result;
		};
		return (T) Proxy.newProxyInstance(StatementRecorder.class.getClassLoader(), new Class<?>[] { type }, handler);
	}

	/** The type pgjdbc sends for a parameter set by {@code setter}; {@code unknown} lets the server infer it. */
	private static String parameterType(String setter, Object[] args) {
		Object value = args[1];
		return switch (setter) {
			case "setString" -> "varchar";
			case "setInt" -> "int4";
			case "setLong" -> "int8";
			case "setShort" -> "int2";
			case "setBoolean" -> "bool";
			case "setNull" -> (value instanceof Integer sqlType) ? nullType(sqlType) : "unknown";
			case "setObject" -> objectType(value);
			default -> "unknown";
		};
	}

	private static String objectType(Object value) {
		if (value instanceof Integer) {
			return "int4";
		}
		if (value instanceof Long) {
			return "int8";
		}
		if (value instanceof String) {
			return "varchar";
		}
		if (value instanceof UUID) {
			return "uuid";
		}
		if (value instanceof OffsetDateTime) {
			return "timestamptz";
		}
		if (value instanceof Boolean) {
			return "bool";
		}
		return "unknown";
	}

	private static String nullType(int sqlType) {
		return switch (sqlType) {
			case Types.VARCHAR -> "varchar";
			case Types.INTEGER -> "int4";
			case Types.BIGINT -> "int8";
			default -> "unknown";
		};
	}

	private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
