PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO nomina_tipos_regimenes VALUES('02','Sueldos (Incluye ingresos señalados en la fracción I del artículo 94 de LISR)','2017-01-01','');
INSERT INTO nomina_tipos_regimenes VALUES('03','Jubilados','2017-01-01','');
INSERT INTO nomina_tipos_regimenes VALUES('04','Pensionados','2017-01-01','');
INSERT INTO nomina_tipos_regimenes VALUES('05','Asimilados Miembros Sociedades Cooperativas Produccion','2017-01-01','');
INSERT INTO nomina_tipos_regimenes VALUES('06','Asimilados Integrantes Sociedades Asociaciones Civiles','2017-01-01','');
COMMIT;
