# Multi-stage build of the operator image: build with Maven, run on a JRE as a non-root user.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml .
COPY operator/pom.xml operator/
COPY e2e/pom.xml e2e/
COPY bench/pom.xml bench/
RUN mvn -B -q -pl operator -am dependency:go-offline
COPY operator/src operator/src
RUN mvn -B -q -pl operator -am package -DskipTests

FROM eclipse-temurin:17-jre
COPY --from=build /src/operator/target/syncgc-operator.jar /app/syncgc-operator.jar
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-jar", "/app/syncgc-operator.jar"]
