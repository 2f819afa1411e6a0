// The explicit, sorted list of wire operations this vault serves.
import type { OpDefinition } from './define.js';
import { AppdataCreate } from './appdata/AppdataCreate.js';
import { AppdataDelete } from './appdata/AppdataDelete.js';
import { AppdataGet } from './appdata/AppdataGet.js';
import { AppdataListAppNames } from './appdata/AppdataListAppNames.js';
import { AppdataListUserAppNames } from './appdata/AppdataListUserAppNames.js';
import { AppdataListVersions } from './appdata/AppdataListVersions.js';
import { AppdataUpdate } from './appdata/AppdataUpdate.js';
import { AuditGetEvent } from './audit/AuditGetEvent.js';
import { AuditListUserEvents } from './audit/AuditListUserEvents.js';
import { AuditProveEvents } from './audit/AuditProveEvents.js';
import { AuditVerify } from './audit/AuditVerify.js';
import { EventSubscriptionCreate } from './events/EventSubscriptionCreate.js';
import { EventSubscriptionList } from './events/EventSubscriptionList.js';
import { EventSubscriptionUpdate } from './events/EventSubscriptionUpdate.js';
import { EventSubscriptionDelete } from './events/EventSubscriptionDelete.js';
import { EventSubscriptionTest } from './events/EventSubscriptionTest.js';
import { EventDeliveryList } from './events/EventDeliveryList.js';
import { EventReplay } from './events/EventReplay.js';
import { ErasureConfirm } from './events/ErasureConfirm.js';
import { ErasureStatusGet } from './events/ErasureStatusGet.js';
import { ErasureReceiptGet } from './events/ErasureReceiptGet.js';
import { BulkDeleteTokens } from './bulk/BulkDeleteTokens.js';
import { BulkListAllUsers } from './bulk/BulkListAllUsers.js';
import { BulkListUnlock } from './bulk/BulkListUnlock.js';
import { BulkListAllAuditEvents } from './bulk/BulkListAllAuditEvents.js';
import { BulkListGroupUsers } from './bulk/BulkListGroupUsers.js';
import { BulkListTokens } from './bulk/BulkListTokens.js';
import { GroupAddUser } from './groups/GroupAddUser.js';
import { CaptchaCreate } from './login/CaptchaCreate.js';
import { UserLogin } from './login/UserLogin.js';
import { UserLogout } from './login/UserLogout.js';
import { UserPrelogin } from './login/UserPrelogin.js';
import { GroupCreate } from './groups/GroupCreate.js';
import { GroupDelete } from './groups/GroupDelete.js';
import { GroupDeleteUser } from './groups/GroupDeleteUser.js';
import { GroupGet } from './groups/GroupGet.js';
import { GroupListAllGroups } from './groups/GroupListAllGroups.js';
import { GroupListUserGroups } from './groups/GroupListUserGroups.js';
import { GroupUpdate } from './groups/GroupUpdate.js';
import { BulkListUsers } from './bulk/BulkListUsers.js';
import { PolicyCreate } from './roles/PolicyCreate.js';
import { PolicyGet } from './roles/PolicyGet.js';
import { PolicyListAllPolicies } from './roles/PolicyListAllPolicies.js';
import { PolicyUpdate } from './roles/PolicyUpdate.js';
import { RoleCreate } from './roles/RoleCreate.js';
import { RoleGet } from './roles/RoleGet.js';
import { RoleListAllRoles } from './roles/RoleListAllRoles.js';
import { RoleLinkPolicy } from './roles/RoleLinkPolicy.js';
import { RoleUpdate } from './roles/RoleUpdate.js';
import { XTokenCreateForRole } from './roles/XTokenCreateForRole.js';
import { XTokenCreateForUser } from './roles/XTokenCreateForUser.js';
import { XTokenListForRole } from './roles/XTokenListForRole.js';
import { XTokenListForUser } from './roles/XTokenListForUser.js';
import { XTokenRevoke } from './roles/XTokenRevoke.js';
import { SystemDeleteUserProfiles } from './system/SystemDeleteUserProfiles.js';
import { SystemGenerateWrappingKey } from './system/SystemGenerateWrappingKey.js';
import { SystemGetOverview } from './system/SystemGetOverview.js';
import { SystemGetSystemStats } from './system/SystemGetSystemStats.js';
import { SystemGetUserProfiles } from './system/SystemGetUserProfiles.js';
import { SystemRestoreUserProfile } from './system/SystemRestoreUserProfile.js';
import { SystemSearchUserProfiles } from './system/SystemSearchUserProfiles.js';
import { SystemSetLicenseKey } from './system/SystemSetLicenseKey.js';
import { TenantCreate } from './tenants/TenantCreate.js';
import { TenantDelete } from './tenants/TenantDelete.js';
import { TenantGet } from './tenants/TenantGet.js';
import { TenantGetUIConf } from './tenants/TenantGetUIConf.js';
import { TenantListTenants } from './tenants/TenantListTenants.js';
import { TenantUpdate } from './tenants/TenantUpdate.js';
import { TokenCreate } from './tokens/TokenCreate.js';
import { TokenCreateBulk } from './tokens/TokenCreateBulk.js';
import { TokenDelete } from './tokens/TokenDelete.js';
import { TokenGet } from './tokens/TokenGet.js';
import { UserCreate } from './users/UserCreate.js';
import { UserCreateBulk } from './users/UserCreateBulk.js';
import { UserDelete } from './users/UserDelete.js';
import { UserDeleteBulk } from './users/UserDeleteBulk.js';
import { UserGet } from './users/UserGet.js';
import { UserListVersions } from './users/UserListVersions.js';
import { UserPatch } from './users/UserPatch.js';
import { UserSearch } from './users/UserSearch.js';
import { UserUpdate } from './users/UserUpdate.js';
import { LegalBasisCreate } from './consent/LegalBasisCreate.js';
import { LegalBasisUpdate } from './consent/LegalBasisUpdate.js';
import { LegalBasisDelete } from './consent/LegalBasisDelete.js';
import { LegalBasisListAgreements } from './consent/LegalBasisListAgreements.js';
import { AgreementAccept } from './consent/AgreementAccept.js';
import { AgreementGet } from './consent/AgreementGet.js';
import { AgreementListUserAgreements } from './consent/AgreementListUserAgreements.js';
import { AgreementCancel } from './consent/AgreementCancel.js';
import { AgreementRevokeAll } from './consent/AgreementRevokeAll.js';
import { ProcessingActivityCreate } from './activities/ProcessingActivityCreate.js';
import { ProcessingActivityUpdate } from './activities/ProcessingActivityUpdate.js';
import { ProcessingActivityDelete } from './activities/ProcessingActivityDelete.js';
import { ProcessingActivityLinkLegalBasis } from './activities/ProcessingActivityLinkLegalBasis.js';
import { ProcessingActivityUnlinkLegalBasis } from './activities/ProcessingActivityUnlinkLegalBasis.js';
import { ProcessingActivityListActivities } from './activities/ProcessingActivityListActivities.js';
import { SessionUpsert } from './sessions/SessionUpsert.js';
import { SessionGet } from './sessions/SessionGet.js';
import { SessionDelete } from './sessions/SessionDelete.js';
import { SessionListUserSessions } from './sessions/SessionListUserSessions.js';
import { SharedRecordCreate } from './shared/SharedRecordCreate.js';
import { SharedRecordDelete } from './shared/SharedRecordDelete.js';
import { SharedRecordGet } from './shared/SharedRecordGet.js';
import { SharedRecordListUserRecords } from './shared/SharedRecordListUserRecords.js';
import { UserDeleteRequest } from './requests/UserDeleteRequest.js';
import { UserUpdateRequest } from './requests/UserUpdateRequest.js';
import { UserPatchRequest } from './requests/UserPatchRequest.js';
import { AppdataUpdateRequest } from './requests/AppdataUpdateRequest.js';
import { AgreementCancelRequest } from './requests/AgreementCancelRequest.js';
import { UserRequestGet } from './requests/UserRequestGet.js';
import { UserRequestApprove } from './requests/UserRequestApprove.js';
import { UserRequestCancel } from './requests/UserRequestCancel.js';
import { UserRequestListUserRequests } from './requests/UserRequestListUserRequests.js';
import { BulkListAllUserRequests } from './requests/BulkListAllUserRequests.js';
import { BulkListFilesByTag } from './files/BulkListFilesByTag.js';
import { FileCreate } from './files/FileCreate.js';
import { FileDelete } from './files/FileDelete.js';
import { FileGet } from './files/FileGet.js';
import { FileListUserFiles } from './files/FileListUserFiles.js';
import { FileReplaceTags } from './files/FileReplaceTags.js';
import { SystemGetUserReport } from './system/SystemGetUserReport.js';
import { SystemGetUserHTMLReport } from './system/SystemGetUserHTMLReport.js';
import { RoleDelete } from './roles/RoleDelete.js';
import { PolicyDelete } from './roles/PolicyDelete.js';
import { PolicyExplain } from './roles/PolicyExplain.js';
import { RoleUnlinkPolicy } from './roles/RoleUnlinkPolicy.js';
import { TenantRotateAdminToken } from './tenants/TenantRotateAdminToken.js';
import { TenantRevokeKek } from './tenants/TenantRevokeKek.js';
import { SystemGetKeyringStatus } from './system/SystemGetKeyringStatus.js';
import { SystemRotateMasterKey } from './system/SystemRotateMasterKey.js';
import { SystemResplitRecoveryKey } from './system/SystemResplitRecoveryKey.js';

export const operations: readonly OpDefinition[] = [
  AgreementAccept,
  AgreementCancel,
  AgreementCancelRequest,
  AgreementGet,
  AgreementListUserAgreements,
  AgreementRevokeAll,
  AppdataCreate,
  AppdataDelete,
  AppdataGet,
  AppdataListAppNames,
  AppdataListUserAppNames,
  AppdataListVersions,
  AppdataUpdate,
  AppdataUpdateRequest,
  AuditGetEvent,
  AuditListUserEvents,
  AuditProveEvents,
  AuditVerify,
  BulkDeleteTokens,
  BulkListAllAuditEvents,
  BulkListAllUserRequests,
  BulkListAllUsers,
  BulkListFilesByTag,
  BulkListGroupUsers,
  BulkListTokens,
  BulkListUnlock,
  BulkListUsers,
  CaptchaCreate,
  ErasureConfirm,
  ErasureReceiptGet,
  ErasureStatusGet,
  EventDeliveryList,
  EventReplay,
  EventSubscriptionCreate,
  EventSubscriptionDelete,
  EventSubscriptionList,
  EventSubscriptionTest,
  EventSubscriptionUpdate,
  FileCreate,
  FileDelete,
  FileGet,
  FileListUserFiles,
  FileReplaceTags,
  GroupAddUser,
  GroupCreate,
  GroupDelete,
  GroupDeleteUser,
  GroupGet,
  GroupListAllGroups,
  GroupListUserGroups,
  GroupUpdate,
  LegalBasisCreate,
  LegalBasisDelete,
  LegalBasisListAgreements,
  LegalBasisUpdate,
  PolicyCreate,
  PolicyDelete,
  PolicyExplain,
  PolicyGet,
  PolicyListAllPolicies,
  PolicyUpdate,
  ProcessingActivityCreate,
  ProcessingActivityDelete,
  ProcessingActivityLinkLegalBasis,
  ProcessingActivityListActivities,
  ProcessingActivityUnlinkLegalBasis,
  ProcessingActivityUpdate,
  RoleCreate,
  RoleDelete,
  RoleGet,
  RoleLinkPolicy,
  RoleListAllRoles,
  RoleUnlinkPolicy,
  RoleUpdate,
  SessionDelete,
  SessionGet,
  SessionListUserSessions,
  SessionUpsert,
  SharedRecordCreate,
  SharedRecordDelete,
  SharedRecordGet,
  SharedRecordListUserRecords,
  SystemDeleteUserProfiles,
  SystemGenerateWrappingKey,
  SystemGetKeyringStatus,
  SystemGetOverview,
  SystemGetSystemStats,
  SystemGetUserHTMLReport,
  SystemGetUserProfiles,
  SystemGetUserReport,
  SystemResplitRecoveryKey,
  SystemRestoreUserProfile,
  SystemRotateMasterKey,
  SystemSearchUserProfiles,
  SystemSetLicenseKey,
  TenantCreate,
  TenantDelete,
  TenantGet,
  TenantGetUIConf,
  TenantListTenants,
  TenantRevokeKek,
  TenantRotateAdminToken,
  TenantUpdate,
  TokenCreate,
  TokenCreateBulk,
  TokenDelete,
  TokenGet,
  UserCreate,
  UserCreateBulk,
  UserDelete,
  UserDeleteBulk,
  UserDeleteRequest,
  UserGet,
  UserListVersions,
  UserLogin,
  UserLogout,
  UserPatch,
  UserPatchRequest,
  UserPrelogin,
  UserRequestApprove,
  UserRequestCancel,
  UserRequestGet,
  UserRequestListUserRequests,
  UserSearch,
  UserUpdate,
  UserUpdateRequest,
  XTokenCreateForRole,
  XTokenCreateForUser,
  XTokenListForRole,
  XTokenListForUser,
  XTokenRevoke,
] as unknown as OpDefinition[];
