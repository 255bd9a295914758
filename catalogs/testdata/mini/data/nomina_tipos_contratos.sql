PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO nomina_tipos_contratos VALUES('01','Contrato de trabajo por tiempo indeterminado');
INSERT INTO nomina_tipos_contratos VALUES('02','Contrato de trabajo para obra determinada');
INSERT INTO nomina_tipos_contratos VALUES('03','Contrato de trabajo por tiempo determinado');
INSERT INTO nomina_tipos_contratos VALUES('04','Contrato de trabajo por temporada');
INSERT INTO nomina_tipos_contratos VALUES('05','Contrato de trabajo sujeto a prueba');
COMMIT;
