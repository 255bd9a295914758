package catalogs

import (
	"slices"
	"testing"
)

// specNames is the list of GET /api/v4/catalogs as spec 3 §4.2 gives it.
var specNames = []string{"SatCfdiUses", "SatCountries", "SatCurrencies", "SatExportCodes", "SatInvoiceTypes", "SatMonths", "SatTaxObjects", "SatPaymentForms", "SatPaymentMethods", "SatPeriodicities", "SatProductCodes", "SatRelationshipTypes", "SatTaxes", "SatStates", "SatTaxRegimes", "SatTaxTypes", "SatUnitMeasurements", "ProductTypes", "ProductDivisions", "ProductGroups", "ProductClasses", "UserTypes", "ReportRuleTypes", "Taxes", "TaxFlags", "TaxTypes", "TaxRules", "PersonTypes", "InvoiceStatuses", "SatBanks", "SatFundSources", "SatPaymentPeriodicities", "SatContractTypes", "SatDeductionTypes", "SatOvertimeTypes", "SatDisabilityTypes", "SatWorkdayTypes", "SatPayrollTypes", "SatOtherPaymentTypes", "SatEarningTypes", "SatTaxRegimeTypes", "SatJobRisks", "SatPayrollStates", "SatUnionizedStatuses", "SatRegimenAduanero", "SatCveTransporte", "SatTipoEstacion", "SatEstaciones", "SatClaveUnidadPeso", "SatMaterialPeligroso", "SatTipoEmbalaje", "SatTipoPermiso", "SatColonia", "SatLocalidad", "SatMunicipio", "SatSectorCOFEPRIS", "SatFormaFarmaceutica", "SatCondicionesEspeciales", "SatTipoMateria", "SatDocumentoAduanero", "SatParteTransporte", "SatFiguraTransporte", "SatConfigAutotransporte", "SatSubTipoRem", "SatRegistroISTMO", "SatConfigMaritima", "SatClaveTipoCarga", "SatContenedorMaritimo", "SatNumAutorizacionNaviero", "SatCodigoTransporteAereo", "SatTipoDeServicio", "SatDerechosDePaso", "SatTipoCarro", "SatContenedor", "SatTipoDeTrafico", "SatFlagTipoUbicacion", "SatFlagNavegacionTrafico", "SatFlagMaterialPeligroso", "SatFlagLogisticaInversaRecoleccionDevolucion", "SatFlagTranspInternac", "SatFlagEntradaSalidaMerc", "SatFlagRegistroISTMO", "SatMotivosCancelacion", "SatClavePedimento", "SatFraccionArancelaria", "SatINCOTERM", "SatMotivoTraslado", "SatTipoOperacion", "SatUnidadAduana"}

func TestNamesAreTheSpecList(t *testing.T) {
	if got := Names(); !slices.Equal(got, specNames) {
		t.Fatalf("Names() =\n%v\nwant\n%v", got, specNames)
	}
	want := []string{"SatInvoiceTypes", "SatInvoiceComplements", "SatInvoiceStatuses", "SatQueryTypes", "SatRequestStatuses",
		"SatStatuses", "DownloadTypes", "DownloadRequestTypes", "DownloadRequestStatuses", "DownloadRuleStatuses"}
	if got := DownloadNames(); !slices.Equal(got, want) {
		t.Fatalf("DownloadNames() = %v", got)
	}
	if _, ok := Lookup("SatValidationTypes"); !ok {
		t.Fatal("SatValidationTypes, an internal catalog of spec 3 §4.2, is not served")
	}
}

func TestRecordIDsAreUniqueInEveryProjectCatalog(t *testing.T) {
	for _, cs := range [][]Catalog{All, Downloads} {
		for _, c := range cs {
			seen := map[string]bool{}
			for _, r := range c.Records {
				if seen[r.ID] {
					t.Errorf("%s: id %q twice", c.Name, r.ID)
				}
				seen[r.ID] = true
			}
			if !c.Imported() && len(c.Records) == 0 {
				t.Errorf("%s has neither a table nor records", c.Name)
			}
		}
	}
}
